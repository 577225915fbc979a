#ifndef cbctModuleEntryPoint_h
#define cbctModuleEntryPoint_h

// Included before each app's source when the Slicer extension builds it (slicer/CMakeLists.txt):
// SEMMacroBuildCLI compiles the source with -Dmain=ModuleEntryPoint and links it with an
// executable that calls ModuleEntryPoint with C linkage, so the renamed main() is declared
// extern "C" before its definition. The apps themselves stay plain programs.
extern "C" int
ModuleEntryPoint(int argc, char ** argv);

#endif
