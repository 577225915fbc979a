#!/usr/bin/env python3
"""Checks of the apps' 3D Slicer command-line module interface (see slicer/README.md).

  slicer_check.py xml APP          APP --xml is a Slicer Execution Model description, and every
                                   option of APP --help is one of its longflags
  slicer_check.py returns APP FILE FILE (APP's --returnparameterfile) has a "name = value" line
                                   with a finite number for each output parameter of APP --xml
  slicer_check.py progress FILE    FILE (an app's stdout) reports progress in Slicer's form

Exits 1 with one line per failure.
"""
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# The Execution Model's parameter elements (ModuleDescriptionParser.cxx).
PARAMETER_TAGS = {
    "integer", "float", "double", "boolean", "string", "integer-vector", "float-vector",
    "double-vector", "string-vector", "integer-enumeration", "float-enumeration",
    "double-enumeration", "string-enumeration", "point", "pointfile", "region", "file",
    "directory", "image", "geometry", "transform", "table", "measurement",
}
CHANNEL_TAGS = {"image", "file", "directory", "geometry", "transform", "table", "measurement", "pointfile"}
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
    try:
        return ET.fromstring(out.encode("utf-8"))
    except ET.ParseError as e:
        fail("%s --xml is no well-formed XML: %s" % (app, e))
        return None


def check_xml(app):
    root = parse_description(app)
    if root is None:
        return
    # The executable root and its description.
    if root.tag != "executable":
        fail("root element is <%s>, not <executable>" % root.tag)
    for tag in ("category", "title", "description", "version"):
        if not text(root, tag):
            fail("<executable> has no non-empty <%s>" % tag)
    if text(root, "category") != "Reconstruction":
        fail("<category> is %r, not 'Reconstruction'" % text(root, "category"))
    groups = root.findall("parameters")
    if not groups:
        fail("no <parameters> group")
    names, longflags, flags, count = set(), set(), set(), 0
    for group in groups:
        if not text(group, "label"):
            fail("a <parameters> group has no <label>")
        for parameter in group:
            if parameter.tag in ("label", "description"):
                continue
            if parameter.tag not in PARAMETER_TAGS:
                fail("unknown parameter element <%s>" % parameter.tag)
                continue
            count += 1
            name = text(parameter, "name")
            where = "<%s> %s" % (parameter.tag, name)
            if not name or not IDENTIFIER.match(name):
                fail("%s: <name> is missing or no identifier" % where)
            elif name in names:
                fail("%s: <name> used twice" % where)
            names.add(name or "")
            channel = text(parameter, "channel")
            longflag, flag, index = text(parameter, "longflag"), text(parameter, "flag"), text(parameter, "index")
            returned = channel == "output" and parameter.tag not in CHANNEL_TAGS  # --returnparameterfile value
            if not (longflag or flag or index is not None) and not returned:
                fail("%s: neither <longflag>, <flag> nor <index>" % where)
            if longflag is not None:
                if longflag.startswith("-") or not re.match(r"^[A-Za-z][A-Za-z0-9_-]*$", longflag):
                    fail("%s: <longflag> %r is not a name without leading dashes" % (where, longflag))
                if longflag in longflags:
                    fail("%s: <longflag> %s used twice" % (where, longflag))
                longflags.add(longflag)
            if flag is not None:
                if not re.match(r"^-?[A-Za-z]$", flag) or flag in flags:
                    fail("%s: <flag> %r is not one unique letter" % (where, flag))
                flags.add(flag)
            if not text(parameter, "label") and not text(parameter, "description"):
                fail("%s: neither <label> nor <description>" % where)
            if parameter.tag in CHANNEL_TAGS and channel not in ("input", "output"):
                fail("%s: <channel> is %r, not input or output" % (where, channel))
            if channel is not None and channel not in ("input", "output"):
                fail("%s: <channel> is %r" % (where, channel))
            default = text(parameter, "default")
            if parameter.tag.endswith("-enumeration"):
                elements = [e.text for e in parameter.findall("element")]
                if not elements:
                    fail("%s: no <element>" % where)
                if default is not None and default not in elements:
                    fail("%s: <default> %r is none of its elements %s" % (where, default, elements))
            if parameter.tag == "boolean" and default not in (None, "true", "false"):
                fail("%s: <default> %r is not true or false" % (where, default))
            if parameter.tag in ("integer", "float", "double") and default is not None and number(default) is None:
                fail("%s: <default> %r is no number" % (where, default))
            if parameter.tag.endswith("-vector") and default is not None:
                if any(number(v) is None for v in default.split(",")):
                    fail("%s: <default> %r is no comma-separated list of numbers" % (where, default))
            constraints = parameter.find("constraints")
            if constraints is not None:
                low, high = number(text(constraints, "minimum")), number(text(constraints, "maximum"))
                if low is None or high is None or low > high:
                    fail("%s: <constraints> need numbers minimum <= maximum" % where)
                elif default is not None and number(default) is not None and not low <= number(default) <= high:
                    fail("%s: <default> %s outside [%s, %s]" % (where, default, low, high))
    if count == 0:
        fail("no parameter in any <parameters> group")
    # Every option of --help is a longflag (--help and --version are not parameters).
    helped = set(re.findall(r"^\s+(?:-[A-Za-z],)?--([A-Za-z][A-Za-z0-9-]*)", run([app, "--help"]), re.M))
    helped -= {"help", "version"}
    if not helped:
        fail("no option found in --help")
    for option in sorted(helped - longflags):
        fail("--%s of --help is no <longflag> of --xml" % option)
    for option in sorted(longflags - helped):
        fail("<longflag>%s</longflag> is no option of --help" % option)
    print("%s --xml: %d groups, %d parameters, %d longflags, all %d options of --help" %
          (app, len(groups), count, len(longflags), len(helped)))


def check_returns(app, path):
    root = parse_description(app)
    if root is None:
        return
    expected = [text(p, "name") for g in root.findall("parameters") for p in g
                if text(p, "channel") == "output" and p.tag not in CHANNEL_TAGS and p.tag not in ("label", "description")]
    if not expected:
        fail("%s --xml declares no output parameter" % app)
    values = {}
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


def check_progress(path):
    with open(path) as f:
        out = f.read()
    starts = re.findall(r"<filter-start>\s*<filter-name>([^<]+)</filter-name>", out)
    progress = [float(v) for v in re.findall(r"^<filter-progress>([0-9.eE+-]+)</filter-progress>$", out, re.M)]
    ends = re.findall(r"<filter-end>\s*<filter-name>([^<]+)</filter-name>\s*<filter-time>([0-9.]+)</filter-time>\s*</filter-end>", out)
    if not starts:
        fail("%s: no <filter-start> with a <filter-name>" % path)
    if not progress:
        fail("%s: no <filter-progress> line" % path)
    elif any(not 0. <= p <= 1. for p in progress) or progress != sorted(progress) or progress[-1] != 1.:
        fail("%s: <filter-progress> values are not increasing fractions ending at 1: %s" % (path, progress))
    if len(ends) != len(starts):
        fail("%s: %d <filter-start> but %d <filter-end>" % (path, len(starts), len(ends)))
    print("%s: filters %s, %d progress lines" % (path, starts, len(progress)))


def main(argv):
    if len(argv) == 3 and argv[1] == "xml":
        check_xml(argv[2])
    elif len(argv) == 4 and argv[1] == "returns":
        check_returns(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "progress":
        check_progress(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    for message in failures:
        print("FAIL: " + message)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
