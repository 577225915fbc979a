// libFuzzer target: the phantom file reader (cbct::GeometricPhantom::ReadFromFile: ellipsoids,
// cylinders, beads). Any input must be refused with an itk::ExceptionObject or read; a phantom read
// is then projected and sampled, and taken as a bead phantom (cbct::BeadPhantom, which refuses
// phantoms whose beads cannot be told apart) (no crash, no undefined behaviour for any accepted
// values).
#include "cbctBeadPhantom.h"
#include "cbctFuzzInput.h"
#include "cbctGeometricPhantom.h"

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "phantom.txt");
  auto phantom = cbct::GeometricPhantom::New();
  try
  {
    phantom->ReadFromFile(path);
  }
  catch (const itk::ExceptionObject &)
  {
    return 0;
  }
  const std::array<double, 3> source{ { 0., 0., 1000. } };
  for (const std::array<double, 3> & direction : { std::array<double, 3>{ { 0., 0., -1. } }, std::array<double, 3>{ { 0.1, 0.05, -1. } } })
    (void)phantom->LineIntegral(source, direction);
  (void)phantom->Density({ { 0., 0., 0. } });
  auto beads = cbct::BeadPhantom::New();
  try
  {
    beads->SetPhantom(phantom);
    (void)beads->Summary();
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
