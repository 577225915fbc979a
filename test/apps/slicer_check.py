#!/usr/bin/env python3
"""Checks of the apps as 3D Slicer command-line modules (see slicer/README.md).

  slicer_check.py xml APP [--generateclp GENERATECLP WORKDIR]
                                   APP --xml is a description Slicer's parser accepts (the rules
                                   below), and its longflags are exactly the options of APP --help;
                                   with SlicerExecutionModel's GenerateCLP, also that Slicer's own
                                   parser reads it
  slicer_check.py run APP BINDIR WORKDIR [--cuda] [--xvfb XVFB_RUN]
                                   the xml checks, then APP run as Slicer runs it: the command line
                                   built from its XML alone, on a small case made with BINDIR's
                                   cbct-simulate and cbct-fdk; the output must exist and be right.
                                   --cuda: also with the hardware parameter set to cuda (skipped
                                   where no CUDA device can be used)
  slicer_check.py returns APP FILE FILE (APP's --returnparameterfile) has a "name = value" line
                                   with a finite number for each output parameter of APP --xml
  slicer_check.py progress FILE    FILE (an app's stdout) reports progress in Slicer's form

Exits 1 with one line per failure ("run" exits 77 when cbct-view has no display to render to).

The rules are those of SlicerExecutionModel's ModuleDescriptionParser, which refuses the whole
module on the first one broken (Slicer then lists none of its parameters):
  - the text starts with "<?xml "; the root is <executable>; only its known elements appear;
  - <parameters> groups directly inside <executable>, each with a <label>;
  - a parameter is one of the parameter elements, with only the children and attributes the parser
    knows; <name> and <longflag> (leading dashes removed) hold only letters, digits and underscores
    and start with a letter or an underscore; <flag> is one character (here: one letter); <index>
    excludes <flag> and <longflag>;
  - image, file, directory (and the other data types) have <channel> input or output; an
    enumeration has its <element>s.
And those of the command line Slicer builds from the description (vtkSlicerCLIModuleLogic):
  - every parameter but the returned ones (channel output, no flag, no index) has a <longflag>, a
    <flag> or an <index>: Slicer passes "--longflag value" (else "-flag value"), then the <index>
    parameters in the order of their indices;
  - a number or an enumeration is passed on every run, the value of its widget (0, or the first
    element, when the description gives no <default>), so it needs a <default> the app accepts;
  - a boolean is passed as the bare flag when true; a string, a vector (comma-separated) or a file
    or directory name only when it is not empty; an image as the name of a temporary file
    (.nrrd) only when the user picked a volume for it;
  - --returnparameterfile FILE where there are returned parameters ("name = value" lines read
    back), --processinformationaddress ADDRESS for modules loaded as shared libraries.
"""
import gzip
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

# The parser's parameter elements, and the ones that name data (a <channel> is required).
PARAMETER_TAGS = {
    "integer", "float", "double", "boolean", "string", "integer-vector", "float-vector",
    "double-vector", "string-vector", "integer-enumeration", "float-enumeration",
    "double-enumeration", "string-enumeration", "point", "pointfile", "region", "file",
    "directory", "image", "geometry", "transform", "table", "measurement",
}
CHANNEL_TAGS = {"image", "file", "directory", "geometry", "transform", "table", "measurement", "pointfile"}
NUMBER_TAGS = {"integer", "float", "double", "integer-enumeration", "float-enumeration", "double-enumeration",
               "string-enumeration"}
OPTIONAL_TEXT_TAGS = {"string", "file", "directory", "integer-vector", "float-vector", "double-vector", "string-vector"}
EXECUTABLE_CHILDREN = {"category", "title", "description", "version", "documentation-url", "license", "contributor",
                       "acknowledgements", "location", "index", "parameters"}
PARAMETER_CHILDREN = {"name", "flag", "longflag", "label", "description", "default", "channel", "element",
                      "constraints", "index", "reference"}
# Attributes the parser accepts per element (others it refuses or, for these, ignores: both are wrong).
ATTRIBUTES = {"file": {"multiple", "fileExtensions"}, "directory": {"multiple"},
              "image": {"multiple", "type", "fileExtensions", "hidden", "reference"},
              "boolean": {"hidden"}, "integer": {"hidden", "multiple"}, "float": {"hidden", "multiple"},
              "double": {"hidden", "multiple"}, "string": {"hidden", "multiple"},
              "string-enumeration": {"hidden"}, "integer-enumeration": {"hidden"},
              "float-enumeration": {"hidden"}, "double-enumeration": {"hidden"}}
IMAGE_TYPES = {"any", "scalar", "label", "tensor", "diffusion-weighted", "vector", "signal", "multichannel",
               "dynamic-contrast-enhanced"}
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

failures = []


def fail(message):
    failures.append(message)


def text(element, tag):
    child = element.find(tag)
    return None if child is None or child.text is None else child.text.strip()


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def run(args):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if result.returncode != 0:
        fail("%s exited with %d: %s" % (" ".join(args), result.returncode, result.stderr.strip()))
    return result.stdout


def parse_description(app):
    out = run([app, "--xml"])
    if not out.startswith("<?xml "):
        fail("%s --xml does not start with '<?xml ' (Slicer's parser requires it)" % app)
    try:
        return ET.fromstring(out.encode("utf-8"))
    except ET.ParseError as e:
        fail("%s --xml is no well-formed XML: %s" % (app, e))
        return None


class Parameter:
    """One parameter of a description, as Slicer's parser reads it."""

    def __init__(self, element, group):
        self.tag = element.tag
        self.group = group
        self.name = text(element, "name")
        self.longflag = text(element, "longflag")
        if self.longflag is not None:
            self.longflag = self.longflag.lstrip("-")
        self.flag = text(element, "flag")
        if self.flag is not None:
            self.flag = self.flag.lstrip("-")
        self.index = text(element, "index")
        self.channel = text(element, "channel")
        self.default = text(element, "default")
        self.label = text(element, "label")
        self.elements = [e.text.strip() if e.text else "" for e in element.findall("element")]
        self.attributes = dict(element.attrib)
        constraints = element.find("constraints")
        self.minimum = None if constraints is None else text(constraints, "minimum")
        self.maximum = None if constraints is None else text(constraints, "maximum")
        self.step = None if constraints is None else text(constraints, "step")
        self.constraints = constraints is not None
        self.children = [child.tag for child in element]
        if self.name is None and self.longflag is not None:
            self.name = self.longflag  # the parser's rule

    def returned(self):
        return self.channel == "output" and not self.longflag and not self.flag and self.index is None

    def where(self):
        return "<%s> %s" % (self.tag, self.name)


def check_description(root):
    """The parser's rules and the command line's needs; returns the parameters."""
    parameters = []
    if root.tag != "executable":
        fail("root element is <%s>, not <executable>" % root.tag)
        return parameters
    for child in root:
        if child.tag not in EXECUTABLE_CHILDREN:
            fail("<executable> has the unknown element <%s>" % child.tag)
    for tag in ("category", "title", "description", "version"):
        if not text(root, tag):
            fail("<executable> has no non-empty <%s>" % tag)
    groups = root.findall("parameters")
    if not groups:
        fail("no <parameters> group")
    for group in groups:
        label = text(group, "label")
        if not label:
            fail("a <parameters> group has no <label>")
        for attribute, value in group.attrib.items():
            if attribute != "advanced" or value not in ("true", "false"):
                fail("<parameters> %s: attribute %s=%r (only advanced=\"true|false\")" % (label, attribute, value))
        for element in group:
            if element.tag in ("label", "description"):
                continue
            if element.tag not in PARAMETER_TAGS:
                fail("group %s: unknown parameter element <%s>" % (label, element.tag))
                continue
            parameters.append(Parameter(element, label))
    names, longflags, flags, indices = set(), set(), set(), set()
    for p in parameters:
        where = p.where()
        for child in p.children:
            if child not in PARAMETER_CHILDREN:
                fail("%s: unknown element <%s>" % (where, child))
        allowed = ATTRIBUTES.get(p.tag, set())
        for attribute in p.attributes:
            if attribute not in allowed:
                fail("%s: attribute %s is not one the parser takes for <%s>" % (where, attribute, p.tag))
        if p.tag == "image" and p.attributes.get("type", "scalar") not in IMAGE_TYPES:
            fail("%s: type=%r is no image type of the parser" % (where, p.attributes["type"]))
        for attribute in ("multiple", "hidden"):
            if p.attributes.get(attribute, "false") not in ("true", "false"):
                fail("%s: %s=%r, not true or false" % (where, attribute, p.attributes[attribute]))
        if not p.name or not IDENTIFIER.match(p.name):
            fail("%s: <name> %r holds other than letters, digits and underscores, or starts with a digit" %
                 (where, p.name))
        elif p.name in names:
            fail("%s: <name> used twice" % where)
        names.add(p.name)
        if p.longflag is not None:
            if not IDENTIFIER.match(p.longflag):
                fail("%s: <longflag> %r holds other than letters, digits and underscores, or starts with a digit "
                     "(Slicer's parser refuses the module)" % (where, p.longflag))
            if p.longflag in longflags:
                fail("%s: <longflag> %s used twice" % (where, p.longflag))
            longflags.add(p.longflag)
        if p.flag is not None:
            if not re.match(r"^[A-Za-z]$", p.flag):
                fail("%s: <flag> %r is not one letter" % (where, p.flag))
            if p.flag in flags:
                fail("%s: <flag> %s used twice" % (where, p.flag))
            flags.add(p.flag)
        if p.index is not None:
            if p.longflag or p.flag:
                fail("%s: <index> with a <flag> or <longflag> (the parser refuses both)" % where)
            if not re.match(r"^[0-9]+$", p.index) or p.index in indices:
                fail("%s: <index> %r is not a new integer >= 0" % (where, p.index))
            indices.add(p.index)
        if not (p.longflag or p.flag or p.index is not None) and not p.returned():
            fail("%s: neither <longflag>, <flag> nor <index>: Slicer cannot pass it" % where)
        if not p.label:
            fail("%s: no <label> (Slicer's widget shows it)" % where)
        if p.tag in CHANNEL_TAGS and p.channel not in ("input", "output"):
            fail("%s: <channel> is %r, not input or output" % (where, p.channel))
        if p.channel is not None and p.channel not in ("input", "output"):
            fail("%s: <channel> is %r" % (where, p.channel))
        if p.tag.endswith("-enumeration"):
            if not p.elements or any(not e for e in p.elements):
                fail("%s: no <element>, or an empty one" % where)
            if p.default is not None and p.default not in p.elements:
                fail("%s: <default> %r is none of its elements %s" % (where, p.default, p.elements))
        if p.tag in NUMBER_TAGS and not p.returned() and p.default is None:
            fail("%s: a number or enumeration without <default>: Slicer passes its widget's value (0 or the first "
                 "element) on every run" % where)
        if p.tag == "boolean" and p.default not in (None, "true", "false"):
            fail("%s: <default> %r is not true or false" % (where, p.default))
        if p.tag in ("float", "double") and p.default is not None and number(p.default) is None:
            fail("%s: <default> %r is no number" % (where, p.default))
        if p.tag == "integer" and p.default is not None and not re.match(r"^[+-]?[0-9]+$", p.default):
            fail("%s: <default> %r is no integer" % (where, p.default))
        if p.tag.endswith("-vector") and p.tag != "string-vector" and p.default is not None:
            if any(number(v) is None for v in p.default.split(",")):
                fail("%s: <default> %r is no comma-separated list of numbers" % (where, p.default))
        if p.constraints:
            low, high, step = number(p.minimum), number(p.maximum), number(p.step)
            if p.tag not in ("integer", "float", "double"):
                fail("%s: <constraints> on a <%s> (Slicer's widget for it has none)" % (where, p.tag))
            if low is None or high is None or low > high:
                fail("%s: <constraints> need numbers minimum <= maximum" % where)
            elif p.default is not None and number(p.default) is not None and not low <= number(p.default) <= high:
                fail("%s: <default> %s outside [%s, %s]" % (where, p.default, low, high))
            if p.step is not None and not (step is not None and step > 0):
                fail("%s: <step> %r is no positive number" % (where, p.step))
    if not parameters:
        fail("no parameter in any <parameters> group")
    return parameters


def help_options(app):
    """The options of APP --help: one list of long names per option, without dashes."""
    options = []
    for line in run([app, "--help"]).splitlines():
        match = re.match(r"^\s+((?:-[A-Za-z0-9],)?--[A-Za-z0-9_][A-Za-z0-9_,-]*)", line)
        if match:
            names = [n[2:] for n in match.group(1).split(",") if n.startswith("--")]
            if not {"help", "version"} & set(names):
                options.append(names)
    return options


def check_with_generateclp(app, generateclp, work):
    """SlicerExecutionModel's GenerateCLP reads the description with Slicer's own parser."""
    os.makedirs(work, exist_ok=True)
    description = os.path.join(work, os.path.basename(app) + ".xml")
    with open(description, "w") as f:
        f.write(run([app, "--xml"]))
    result = subprocess.run([generateclp, "--InputXML", description, "--OutputCxx", description + "CLP.h"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if result.returncode != 0:
        fail("GenerateCLP (Slicer's parser) refuses %s --xml: %s" % (os.path.basename(app), result.stdout.strip()))
    else:
        print("GenerateCLP reads %s --xml: %s" % (os.path.basename(app), result.stdout.strip().splitlines()[-1]))


def check_xml(app):
    root = parse_description(app)
    if root is None:
        return None
    parameters = check_description(root)
    # Every option of --help is advertised, and every longflag advertised is a name of an option.
    options = help_options(app)
    if not options:
        fail("no option found in --help")
    longflags = {p.longflag for p in parameters if p.longflag}
    accepted = {name for names in options for name in names}
    for names in options:
        if not longflags & set(names):
            fail("--%s of --help is advertised by no <longflag> of --xml" % names[0])
    for longflag in sorted(longflags - accepted):
        fail("<longflag>%s</longflag>: --%s is no option of %s --help" % (longflag, longflag, os.path.basename(app)))
    # The GPU from Slicer: an app with --hardware offers it as an enumeration with cpu and cuda.
    if "hardware" in accepted:
        hardware = [p for p in parameters if p.longflag == "hardware"]
        if not hardware or hardware[0].tag != "string-enumeration" or not {"cpu", "cuda"} <= set(hardware[0].elements):
            fail("--hardware is not described as a string-enumeration with cpu and cuda")
    print("%s --xml: %d groups, %d parameters, %d longflags, all %d options of --help" %
          (os.path.basename(app), len(root.findall("parameters")), len(parameters), len(longflags), len(options)))
    return parameters


def check_returns(app, path, parameters=None, bounds=None):
    if parameters is None:
        root = parse_description(app)
        if root is None:
            return {}
        parameters = check_description(root)
    expected = [p.name for p in parameters if p.returned()]
    if not expected:
        fail("%s --xml declares no output parameter" % app)
    values = {}
    if not os.path.exists(path):
        fail("%s: no return parameter file" % path)
        return values
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            match = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$", line)
            if not match:
                fail("%s: line %r is not 'name = value'" % (path, line.rstrip("\n")))
                continue
            values[match.group(1)] = match.group(2)
    for name in expected:
        value = number(values.get(name))
        if value is None or not math.isfinite(value):
            fail("%s: %s is %r, not a finite number" % (path, name, values.get(name)))
    print("%s: %s" % (path, ", ".join("%s = %s" % item for item in values.items())))
    return values


def check_progress(path, required=True):
    with open(path) as f:
        out = f.read()
    starts = re.findall(r"<filter-start>\s*<filter-name>([^<]+)</filter-name>", out)
    progress = [float(v) for v in re.findall(r"^<filter-progress>([0-9.eE+-]+)</filter-progress>$", out, re.M)]
    ends = re.findall(r"<filter-end>\s*<filter-name>([^<]+)</filter-name>\s*<filter-time>([0-9.]+)</filter-time>\s*</filter-end>", out)
    if not required and "<filter-" not in out:
        return
    if not starts:
        fail("%s: no <filter-start> with a <filter-name>" % path)
    if not progress:
        fail("%s: no <filter-progress> line" % path)
    elif any(not 0. <= p <= 1. for p in progress) or progress != sorted(progress) or progress[-1] != 1.:
        fail("%s: <filter-progress> values are not increasing fractions ending at 1: %s" % (path, progress))
    if len(ends) != len(starts):
        fail("%s: %d <filter-start> but %d <filter-end>" % (path, len(starts), len(ends)))
    print("%s: filters %s, %d progress lines" % (path, starts, len(progress)))


# ------------------------------------------------------------------------------------------------
# Files: NRRD volumes (what Slicer hands to and takes from a module) and PNG pictures.

NRRD_TYPES = {"float": "f", "double": "d", "short": "h", "int16": "h", "signed short": "h", "ushort": "H",
              "unsigned short": "H", "uint16": "H", "int": "i", "int32": "i", "uint": "I", "unsigned int": "I",
              "uchar": "B", "unsigned char": "B", "uint8": "B", "char": "b", "signed char": "b", "int8": "b"}


def read_nrrd(path):
    """(sizes, values) of a NRRD file with raw or gzip data, attached or in a 'data file'."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"NRRD000"):
        raise ValueError("%s is no NRRD file" % path)
    end = data.find(b"\n\n")
    if end < 0:
        raise ValueError("%s: no end of header" % path)
    fields = {}
    for line in data[:end].decode("latin-1").splitlines()[1:]:
        if line.startswith("#") or ":" not in line:
            continue
        key, value = line.split(":", 1)
        fields[key.strip().lower()] = value.lstrip("=").strip()
    payload = data[end + 2:]
    if "data file" in fields or "datafile" in fields:
        name = fields.get("data file", fields.get("datafile"))
        with open(os.path.join(os.path.dirname(path), name), "rb") as f:
            payload = f.read()
    sizes = [int(v) for v in fields["sizes"].split()]
    code = NRRD_TYPES[fields["type"].lower()]
    encoding = fields.get("encoding", "raw").lower()
    if encoding in ("gz", "gzip"):
        payload = gzip.decompress(payload)
    elif encoding != "raw":
        raise ValueError("%s: encoding %s" % (path, encoding))
    count = 1
    for s in sizes:
        count *= s
    order = ">" if fields.get("endian", "little") == "big" else "<"
    width = struct.calcsize(code)
    if len(payload) < count * width:
        raise ValueError("%s: %d bytes of data for %d values" % (path, len(payload), count))
    return sizes, struct.unpack(order + "%d%s" % (count, code), payload[len(payload) - count * width:])


def read_png(path):
    """(width, height, channels, rows of values) of an 8-bit PNG, not interlaced."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s is no PNG file" % path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace != 0 or colour not in (0, 2, 4, 6):
        raise ValueError("%s: PNG of depth %d, colour type %d, interlace %d" % (path, depth, colour, interlace))
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


# ------------------------------------------------------------------------------------------------
# Running an app as Slicer does.

# The small case: 20 projections of 32 x 32 pixels of 8 mm of the Shepp-Logan phantom (scale 60 mm),
# and its FDK reconstruction on 16^3 voxels of 8 mm, made with plain command lines.
SIMULATE = ["--nproj", "20", "--detector-size", "32", "--detector-spacing", "8", "--phantom-scale", "60"]
FDK = ["--dimension", "16", "--spacing", "8"]
# cbct-calibrate needs views enough to find the axis (36 or more): its own scan, whose stage stands 4 mm
# off (source and detector offsets) in the geometry it is given, so the calibration should change little.
SIMULATE_CALIBRATE = ["--nproj", "72", "--detector-size", "48", "--detector-spacing", "4", "--phantom-scale", "60",
                      "--proj-offset-x", "-4", "--source-offset-x", "-4"]

# What a Slicer user would pick and type, per app, by parameter <name> (names are C++ identifiers,
# the same whatever the spelling of the option): the volumes and files picked for the inputs ("@p":
# the projections, "@v": the volume, "@g": the geometry), the outputs given a node ("@out" with the
# file's extension), the values typed (the others keep the description's defaults), and what the
# output must satisfy. An app without a case is run with its defaults, the volume for its input
# images, the geometry for its .xml input files and a new file for each output.
RECONSTRUCTION = {"inputs": {"geometry": "@g", "projections": "@p"}, "outputs": {"output": ".nrrd"},
                  "values": {"dimension": "16", "spacing": "8", "newSpacing": "8,8"}, "check": "volume"}
CASES = {
    "cbct-simulate": {"outputs": {"geometry": ".xml", "output": ".nrrd"},
                      "values": {"nproj": "20", "detectorSize": "32", "detectorSpacing": "8"},
                      "check": "projections", "cuda": {"emission": "true"}},
    "cbct-fdk": dict(RECONSTRUCTION, check="fdk", progress=True),
    "cbct-sart": RECONSTRUCTION, "cbct-cgls": RECONSTRUCTION, "cbct-osem": RECONSTRUCTION,
    "cbct-asdpocs": RECONSTRUCTION, "cbct-admmtv": RECONSTRUCTION,
    "cbct-forward": {"inputs": {"geometry": "@g", "input": "@v"}, "outputs": {"output": ".nrrd"},
                     "values": {"dimension": "32", "spacing": "8"}, "check": "forward"},
    "cbct-compare": {"inputs": {"input": "@v"}, "check": "compare", "progress": True},
    "cbct-slices": {"inputs": {"input": "@v"}, "outputs": {"output": ".png"}, "check": "slices"},
    "cbct-view": {"inputs": {"input": "@v"}, "outputs": {"screenshot": ".png"}, "check": "view", "display": True},
    # The small case does not breathe: the second harmonic of its rotation stands in for the cycles.
    "cbct-calibrate": {"inputs": {"geometry": "@g", "projections": "@p"}, "outputs": {"output": ".xml"},
                       "simulate": SIMULATE_CALIBRATE, "check": "calibrate"},
    "cbct-signal": {"inputs": {"geometry": "@g", "projections": "@p"},
                    "outputs": {"output": ".txt", "shroud": ".nrrd", "signalOutput": ".txt"},
                    "values": {"slowHarmonics": "0", "minRegularity": "0"}},
}
# Mean absolute error per voxel against the phantom, inside the central region (cbct-compare's
# centralMAE) that each reconstruction of the small case must stay below (FDK's is about 0.08).
MAE_BOUND = {"cbct-fdk": 0.15, "cbct-sart": 0.15, "cbct-cgls": 0.15, "cbct-osem": 0.25, "cbct-asdpocs": 0.15,
             "cbct-admmtv": 0.15}


def slicer_command(app, parameters, case, work, fixture, values):
    """The command line Slicer builds from the description, with the case's picks."""
    command = [app]
    if any(p.returned() for p in parameters):
        command += ["--returnparameterfile", os.path.join(work, "returns.params")]
    command += ["--processinformationaddress", "0x55d0c0ffee00"]
    outputs = {}
    indexed = []
    for p in parameters:
        if p.returned():
            continue
        value = values.get(p.name, p.default)
        if p.tag in CHANNEL_TAGS:
            if p.channel == "input":
                pick = case.get("inputs", {}).get(p.name)
                if pick is None and "inputs" not in case:  # no case: the volume, and the geometry file
                    if p.tag == "image":
                        pick = "@v"
                    elif p.tag == "file" and ".xml" in p.attributes.get("fileExtensions", ""):
                        pick = "@g"
                if pick is None:
                    continue
                source = fixture[pick]
                # Slicer writes the picked node to a temporary file for the run.
                value = os.path.join(work, "in_" + p.name + os.path.splitext(source)[1])
                shutil.copyfile(source, value)
            else:
                extension = case.get("outputs", {}).get(p.name)
                if extension is None and "outputs" not in case:  # no case: every output gets a file
                    if p.tag == "image":
                        extension = ".nrrd"
                    elif p.tag == "file":
                        extension = (p.attributes.get("fileExtensions", "").split(",")[0] or ".out").strip()
                if extension is None:
                    continue
                value = os.path.join(work, "out_" + p.name + extension)
                if os.path.exists(value):
                    os.remove(value)
                outputs[p.name] = value
        elif p.tag == "boolean":
            if value != "true":
                continue
            value = None
        elif p.tag in NUMBER_TAGS:
            if value is None:  # the widget's value without a default
                value = p.elements[0] if p.tag.endswith("-enumeration") and p.elements else "0"
        elif not value:
            continue
        if p.index is not None:
            indexed.append((int(p.index), value))
            continue
        command.append("--" + p.longflag if p.longflag else "-" + p.flag)
        if value is not None:
            command.append(value)
    command += [value for _, value in sorted(indexed)]
    return command, outputs


def make_fixture(bindir, work, simulate=SIMULATE):
    fixture = {"@g": os.path.join(work, "g.xml"), "@p": os.path.join(work, "p.nrrd"), "@v": os.path.join(work, "v.nrrd")}
    run([os.path.join(bindir, "cbct-simulate")] + simulate + ["-g", fixture["@g"], "-o", fixture["@p"]])
    run([os.path.join(bindir, "cbct-fdk"), "-g", fixture["@g"], "--projections", fixture["@p"], "-o", fixture["@v"]] + FDK)
    return fixture


def finite_image(path, sizes=None):
    try:
        shape, data = read_nrrd(path)
    except (OSError, ValueError, KeyError) as e:
        fail("%s: %s" % (path, e))
        return None, None
    bad = sum(1 for v in data if not math.isfinite(v))
    if bad:
        fail("%s: %d values are not finite" % (path, bad))
    if sizes is not None and shape != sizes:
        fail("%s: sizes %s, expected %s" % (path, shape, sizes))
    return shape, data


def compare_with_phantom(bindir, work, path, bound, name):
    """cbct-compare's central MAE of `path` against the phantom (plain command line, outside Slicer)."""
    returns = os.path.join(work, "compare_" + name + ".params")
    env = dict(os.environ)
    env.pop("SLICER_HOME", None)
    env.pop("CBCT_PROGRESS", None)
    result = subprocess.run([os.path.join(bindir, "cbct-compare"), "-i", path, "--returnparameterfile", returns],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env)
    if result.returncode != 0:
        fail("cbct-compare -i %s: %s" % (path, result.stderr.strip()))
        return
    if "<filter-" in result.stdout:
        fail("cbct-compare outside Slicer (no address, no SLICER_HOME) wrote <filter-...> lines on stdout")
    values = {}
    with open(returns) as f:
        for line in f:
            key, _, value = line.partition("=")
            values[key.strip()] = number(value)
    mae = values.get("centralMAE")
    if mae is None or not math.isfinite(mae) or not mae <= bound:
        fail("%s: central MAE against the phantom %r, expected <= %g" % (path, mae, bound))
    else:
        print("%s: central MAE %.4f (bound %g), PSNR %.1f dB" % (os.path.basename(path), mae, bound,
                                                                   values.get("centralPSNR", float("nan"))))


def check_output(app, case, outputs, bindir, work, fixture, parameters, label):
    kind = case.get("check")
    name = os.path.basename(app)
    for parameter, path in outputs.items():
        if not os.path.exists(path):
            fail("%s: output %s (%s) was not written" % (name, parameter, path))
            return
    if kind == "calibrate":
        # The calibrated geometry keeps the simulated stage offset (the geometry given was right).
        text = open(outputs["output"]).read()
        found = re.findall(r"<SourceOffsetX>([^<]*)</SourceOffsetX>", text)
        if not found or not all(abs(float(v) + 4.0) < 0.1 for v in found):
            fail("%s: SourceOffsetX %s in %s, expected -4 mm within 0.1" % (name, found[:3], outputs["output"]))
        return
    if kind == "projections":
        # The same values as the plain command line with the same settings (on the CPU: the
        # fixture; the cuda run computes emission projections, against the CPU's, 1e-4 relative).
        reference = fixture["@p"]
        if label == "cuda":
            reference = os.path.join(work, "p_emission.nrrd")
            run([os.path.join(bindir, "cbct-simulate")] + SIMULATE +
                ["--emission", "--hardware", "cpu", "-g", os.path.join(work, "g_emission.xml"), "-o", reference])
        _, data = finite_image(outputs["output"], [32, 32, 20])
        _, plain = finite_image(reference)
        if data is not None and plain is not None:
            difference = max(abs(a - b) for a, b in zip(data, plain))
            if not difference <= 1e-4 * max(abs(v) for v in plain):
                fail("%s: projections differ from the plain command line's by up to %g" % (name, difference))
            if label == "cpu" and not 20. < max(data) < 200.:
                fail("%s: largest line integral %g, expected the phantom's (20 to 200 mm)" % (name, max(data)))
            if label == "cuda" and not max(data) > 0.:
                fail("%s: emission projections without a positive value" % name)
        with open(outputs["geometry"]) as f:
            projections = f.read().count("<Projection>")
        if projections != 20:
            fail("%s: the geometry has %d projections, expected 20" % (name, projections))
    elif kind in ("volume", "fdk"):
        _, data = finite_image(outputs["output"], [16, 16, 16])
        if data is not None:
            if kind == "fdk":
                _, plain = finite_image(fixture["@v"])
                difference = max(abs(a - b) for a, b in zip(data, plain))
                if not difference <= 1e-5:
                    fail("%s: volume differs from the plain command line's by up to %g" % (name, difference))
            compare_with_phantom(bindir, work, outputs["output"], MAE_BOUND.get(name, 0.25), name)
    elif kind == "forward":
        _, data = finite_image(outputs["output"], [32, 32, 20])
        _, original = finite_image(fixture["@p"])
        if data is not None and original is not None:
            # The reprojection of the 8 mm reconstruction against the phantom's exact projections.
            error = sum(abs(a - b) for a, b in zip(data, original)) / sum(abs(b) for b in original)
            if not error <= 0.25:
                fail("%s: reprojection differs from the phantom's projections by %.3f of their mean" % (name, error))
            else:
                print("%s: reprojection within %.3f of the phantom's projections" % (name, error))
    elif kind == "compare":
        values = check_returns(app, os.path.join(work, "returns.params"), parameters)
        mae = number(values.get("centralMAE"))
        if mae is None or not mae <= MAE_BOUND["cbct-fdk"]:
            fail("%s: centralMAE %r, expected <= %g for the case's FDK" % (name, mae, MAE_BOUND["cbct-fdk"]))
    elif kind in ("slices", "view"):
        try:
            width, height, channels, rows = read_png(list(outputs.values())[0])
        except (OSError, ValueError) as e:
            fail("%s: %s" % (name, e))
            return
        values = {v for row in rows for v in row}
        if kind == "slices" and (width < 32 or height < 16 or len(values) < 8):
            fail("%s: %d x %d picture with %d grey levels: not three slices of the volume" %
                 (name, width, height, len(values)))
        size = [p.default for p in parameters if p.name == "size"]
        if kind == "view" and size and [width, height] != [int(v) for v in size[0].split(",")]:
            fail("%s: %d x %d picture, expected the default size %s" % (name, width, height, size[0]))
        print("%s: %d x %d picture, %d distinct values" % (name, width, height, len(values)))
    elif kind is None:
        for path in outputs.values():
            if path.endswith(".nrrd"):
                finite_image(path)


def run_as_slicer(app, bindir, work, cuda, xvfb):
    name = os.path.basename(app)
    app, bindir, work = os.path.abspath(app), os.path.abspath(bindir), os.path.abspath(work)
    parameters = check_xml(app)
    if parameters is None or failures:
        return 0  # Slicer would not load the module: running it means nothing more
    case = CASES.get(name, {})
    if case.get("display") and not xvfb and not os.environ.get("DISPLAY"):
        print("SKIP: %s renders through X: no xvfb-run and no DISPLAY" % name)
        return 77
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    fixture = make_fixture(bindir, work, case.get("simulate", SIMULATE))
    if failures:
        return 0
    runs = [("cpu", case.get("values", {}))]
    hardware = [p for p in parameters if p.longflag == "hardware"]
    if cuda and hardware and "cuda" in hardware[0].elements:
        runs.append(("cuda", dict(case.get("values", {}), hardware="cuda", **case.get("cuda", {}))))
    for label, values in runs:
        command, outputs = slicer_command(app, parameters, case, work, fixture, values)
        prefix = [xvfb, "-a"] if case.get("display") and xvfb else []
        print("Slicer's command line (%s): %s" % (label, " ".join(command)))
        result = subprocess.run(prefix + command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, cwd=work)
        with open(os.path.join(work, "stdout_%s.txt" % label), "w") as f:
            f.write(result.stdout)
        if label == "cuda" and result.returncode != 0 and re.search(
                r"--hardware cuda: (no CUDA device|this build has no CUDA)", result.stderr):
            print("SKIP (cuda run): %s" % result.stderr.strip())
            continue
        if result.returncode != 0:
            message = result.stderr.strip()
            if not case and result.returncode == 1 and re.search(r" is required| requires ", message):
                # No case says what to pick for this app's inputs: a clean refusal of the missing
                # input is all that can be asked (every flag Slicer passed was accepted).
                print("%s: with the defaults alone: %s (add a case to CASES to run it on data)" % (name, message))
                continue
            fail("%s exited with %d as Slicer runs it: %s" % (name, result.returncode, message))
            continue
        check_progress(os.path.join(work, "stdout_%s.txt" % label), required=case.get("progress", False))
        if case.get("progress") and label == "cpu":
            # An executable module gets no address: Slicer's launcher sets SLICER_HOME and reads
            # stdout through a pipe. The outputs exist already, as when a user runs a module again.
            plain = [a for i, a in enumerate(command) if a != "--processinformationaddress" and
                     (i == 0 or command[i - 1] != "--processinformationaddress")]
            env = dict(os.environ, SLICER_HOME=work)
            env.pop("CBCT_PROGRESS", None)
            again = subprocess.run(plain, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                                   cwd=work, env=env)
            with open(os.path.join(work, "stdout_slicer_home.txt"), "w") as f:
                f.write(again.stdout)
            if again.returncode != 0:
                fail("%s run again under SLICER_HOME: %s" % (name, again.stderr.strip()))
            else:
                check_progress(os.path.join(work, "stdout_slicer_home.txt"))
        if any(p.returned() for p in parameters) and case.get("check") != "compare":
            check_returns(app, os.path.join(work, "returns.params"), parameters)
        check_output(app, case, outputs, bindir, work, fixture, parameters, label)
    return 0


def main(argv):
    status = 0
    if len(argv) == 3 and argv[1] == "xml":
        check_xml(argv[2])
    elif len(argv) == 6 and argv[1] == "xml" and argv[3] == "--generateclp":
        check_xml(argv[2])
        check_with_generateclp(argv[2], argv[4], argv[5])
    elif len(argv) >= 5 and argv[1] == "run":
        options = argv[5:]
        xvfb = None
        if "--xvfb" in options:
            position = options.index("--xvfb")
            xvfb = options[position + 1] if position + 1 < len(options) and options[position + 1] else None
        status = run_as_slicer(argv[2], argv[3], argv[4], "--cuda" in options, xvfb)
    elif len(argv) == 4 and argv[1] == "returns":
        check_returns(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "progress":
        check_progress(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    for message in failures:
        print("FAIL: " + message)
    return 1 if failures else status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
