// Writes the seed corpora of cbctFuzzXimFile and cbctFuzzHndFile (small valid files made by
// test/cbctVarianTestFiles.h): cbctVarianFuzzSeeds test/fuzz/corpus
#include "cbctVarianTestFiles.h"

#include <iostream>
#include <tuple>

namespace
{
using namespace cbct::test;

void
WriteSeeds(const std::string & corpus)
{
  const std::string xim = corpus + "/cbctFuzzXimFile/";
  const std::string hnd = corpus + "/cbctFuzzHndFile/";

  // XIM: compressed with differences of 1, 2 and 4 bytes and every property type; a table ending in
  // a partly used byte; uncompressed of 4 and 2 bytes per pixel.
  XimContents c;
  c.width = 7;
  c.height = 5;
  for (int i = 0; i < 35; ++i)
    c.pixels.push_back(i % 5 == 0 ? 1000 + 40000 * (i % 3) - 70000 * (i % 2) : 1000 + i);
  c.properties = TypicalXimProperties();
  c.histogram = { 3, 1, 4 };
  WriteXim(xim + "compressed_7x5.xim", c);
  XimContents small;
  small.width = 4;
  small.height = 3;
  small.pixels = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 300 };
  small.properties = { XimProperty::Real("PixelWidth", 0.0388), XimProperty::Real("PixelHeight", 0.0388) };
  WriteXim(xim + "compressed_4x3.xim", small);
  XimContents raw = small;
  raw.compressed = false;
  WriteXim(xim + "raw4_4x3.xim", raw);
  raw.bytesPerPixel = 2;
  raw.properties.push_back(XimProperty::Integers("Ints", { 1, -2 }));
  raw.properties.push_back(XimProperty::Text("Name", "kV"));
  WriteXim(xim + "raw2_4x3.xim", raw);

  // HND (first byte 0) and HNC (first byte 1).
  HndContents h;
  h.width = 6;
  h.height = 4;
  h.pixels = { 100, 101, 99, 100, 100, 5000, 60000, 100, 3, 100, 100, 0xffffffffu, 0, 0x80000000u, 101, 102, 99, 7, 1, 2, 3, 4, 5, 6 };
  SetTypicalHndHeader(h);
  for (const auto & [name, prefix, bytes] :
       { std::make_tuple("compressed_6x4.hnd", 0, MakeHnd(h).bytes), std::make_tuple("raw_6x4.hnc", 1, MakeHnc(h)) })
  {
    Bytes file{ static_cast<unsigned char>(prefix) };
    file.insert(file.end(), bytes.begin(), bytes.end());
    WriteBytes(hnd + name, file);
  }
}
} // namespace

int
main(int argc, char * argv[])
{
  if (argc != 2)
  {
    std::cerr << "usage: cbctVarianFuzzSeeds CORPUS_DIRECTORY (its cbctFuzzXimFile/ and cbctFuzzHndFile/ must exist)\n";
    return 1;
  }
  try
  {
    WriteSeeds(argv[1]);
  }
  catch (const std::exception & e)
  {
    std::cerr << "cbctVarianFuzzSeeds: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
