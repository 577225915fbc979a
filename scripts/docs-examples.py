#!/usr/bin/env python3
"""Runs the code blocks of the documentation (README.md and docs/**/*.md, with the files they
{include}) against a build, so that every example stays true. docs/dev/documentation.md describes the
convention; in short:

- A fenced block in ```bash (or sh, shell) runs with `bash -euo pipefail`; ```python runs in one
  namespace per page (blocks in order, as a reader pastes them). Each page runs in its own empty
  temporary directory, where build/, scripts/, examples/, wrapping/, test/ and include/ are links to
  the repository's, so that commands written from the repository root work; the build's apps
  (build/bin) are on PATH, its Python package (build/python) on PYTHONPATH, `python3` is the
  interpreter the package was built for, and CMAKE_PREFIX_PATH points at the build installed into a
  scratch prefix (so that find_package(ConeBeamCT) works as after `cmake --install`).
- A block whose first line is `// file: NAME` or `# file: NAME` (any language: C++, CMake, Python,
  XML, ...) is written to NAME in the page's directory instead of being run; a later bash block
  builds or uses it.
- A block directly below the comment `<!-- docs-examples: skip REASON -->` is not run (a GPU, MPI,
  Slicer, a vendor's data, an interactive window, the whole test suite ...): the reason is required.
- `<!-- docs-examples: image FILE DOCS_PATH -->` says that the page's blocks write FILE (checked after
  the page ran); with --update-images it is copied to docs/DOCS_PATH, the picture the page shows.
- Blocks in other languages (none, text, console, xml, json, ini, ...) are listings and not run.

Usage: docs-examples.py [--build DIR] [--update-images] [--list] [--keep] [--docs DIR] [PAGE.md ...]
Exits non-zero when a block fails, naming the page, the line and the block's output.
"""

import argparse
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
SHELLS = {"bash", "sh", "shell"}
COMPILED = {"cpp", "c++", "cxx", "c", "cmake"}  # must be file blocks (or skipped)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
MARKER = re.compile(r"<!--\s*docs-examples:\s*(\w+)\s*(.*?)\s*-->")
FILE_LINE = re.compile(r"^\s*(?://|#)\s*file:\s*(\S+)\s*$")
INCLUDE = re.compile(r"^\{include\}\s+(\S+)")
LINKED = ["build", "scripts", "examples", "wrapping", "test", "include", "benchmarks", "docs"]
BLOCK_TIMEOUT = 600


class Block:
    def __init__(self, path, line, lang, text, skip):
        self.path, self.line, self.lang, self.text, self.skip = path, line, lang, text, skip

    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"


def parse(path, images, seen=()):
    """The blocks of a page in order, those of its {include}d files in place; images gets the page's
    image markers."""
    if path in seen:
        raise SystemExit(f"docs-examples: error: {path} includes itself")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i, pending_skip = [], 0, None
    while i < len(lines):
        line = lines[i]
        for kind, arg in MARKER.findall(line):
            if kind == "skip":
                if not arg:
                    raise SystemExit(f"docs-examples: error: {path}:{i + 1}: a skip marker needs a reason")
                pending_skip = arg
            elif kind == "image":
                parts = arg.split()
                if len(parts) != 2:
                    raise SystemExit(f"docs-examples: error: {path}:{i + 1}: expected "
                                     "<!-- docs-examples: image FILE DOCS_PATH -->")
                images.append((path, i + 1, parts[0], parts[1]))
            else:
                raise SystemExit(f"docs-examples: error: {path}:{i + 1}: unknown marker '{kind}' "
                                 "(expected skip or image)")
        m = FENCE.match(line)
        if not m:
            if line.strip() and not MARKER.search(line):
                pending_skip = None  # a marker applies to the block right below it only
            i += 1
            continue
        indent, fence, info = m.groups()
        body, j = [], i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        info = info.strip()
        inc = INCLUDE.match(info)
        if inc:
            target = os.path.normpath(os.path.join(os.path.dirname(path), inc.group(1)))
            options = {key: value.strip().strip('"') for key, value in  # MyST reads options as YAML
                       re.findall(r"^:([\w-]+):\s*(.*)$", "\n".join(body), re.M)}
            blocks.extend(parse_included(target, options, images, seen + (path,)))
        else:
            lang = info.split()[0].lower() if info else ""
            blocks.append(Block(path, i + 1, lang, "\n".join(body) + "\n", pending_skip))
        pending_skip = None
        i = j + 1
    return blocks


def parse_included(target, options, images, seen):
    if "start-after" not in options and "end-before" not in options:
        return parse(target, images, seen)
    with open(target, encoding="utf-8") as f:
        text = f.read()
    offset = 0
    if "start-after" in options:
        offset = text.index(options["start-after"]) + len(options["start-after"])
    end = text.index(options["end-before"], offset) if "end-before" in options else len(text)
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as part:
        part.write("\n" * text[:offset].count("\n") + text[offset:end])  # same line numbers
    try:
        blocks = parse(part.name, images, seen)
    finally:
        os.unlink(part.name)
    for block in blocks:
        block.path = target
    return blocks


def pages(arguments):
    if arguments:
        return [os.path.abspath(p) for p in arguments]
    found = [os.path.join(ROOT, "README.md")]
    for directory, subdirs, files in os.walk(DOCS):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(("_", ".")))
        found += [os.path.join(directory, f) for f in sorted(files) if f.endswith(".md")]
    return found


def install_prefix(build, scratch):
    # The library, its headers and its CMake package only (not the apps): the directories' own
    # install scripts, without their subdirectories'.
    prefix = os.path.join(scratch, "prefix")
    if not os.path.isdir(prefix):
        for directory in ("", "src", os.path.join("src", "mpi")):
            script = os.path.join(build, directory, "cmake_install.cmake")
            if os.path.isfile(script):
                subprocess.run(["cmake", f"-DCMAKE_INSTALL_PREFIX={prefix}", "-DCMAKE_INSTALL_LOCAL_ONLY=ON",
                                "-P", script], check=True, stdout=subprocess.DEVNULL)
    return prefix


def run_page(page, blocks, images, build, scratch, update_images, keep):
    work = tempfile.mkdtemp(prefix="docs-example-", dir=scratch)
    for name in LINKED:
        source = build if name == "build" else os.path.join(ROOT, name)
        if os.path.exists(source):
            os.symlink(source, os.path.join(work, name))
    bindir = os.path.join(scratch, "python-bin")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.join(build, "bin"), bindir, env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(build, "python"), env.get("PYTHONPATH")]))
    env["MPLBACKEND"] = "Agg"
    env.setdefault("CBCT_MEMORY_CHECK", "warn")
    # mpirun as root (CI), two ranks on a 2-core machine, and no network but the loopback.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_btl_tcp_if_include="lo", OMPI_MCA_oob_tcp_if_include="lo")
    if "CMAKE_GENERATOR" not in env and shutil.which("ninja"):
        env["CMAKE_GENERATOR"] = "Ninja"  # as the project's own build; make is not among its packages
    if any("find_package(ConeBeamCT" in b.text for b in blocks if b.skip is None):
        env["CMAKE_PREFIX_PATH"] = install_prefix(build, scratch)
    namespace = {"__name__": "__main__"}
    failures = 0
    counts = {"passed": 0, "skipped": 0}
    for block in blocks:
        if block.skip is not None:
            print(f"   skip {block.where()} ({block.lang}): {block.skip}")
            counts["skipped"] += 1
            continue
        first = block.text.split("\n", 1)[0]
        named = FILE_LINE.match(first)
        if named:
            target = os.path.join(work, named.group(1))
            if not os.path.realpath(target).startswith(os.path.realpath(work) + os.sep):
                print(f"   FAIL {block.where()}: file {named.group(1)} would be written outside the page's "
                      "directory (build/, scripts/, include/ ... there are the repository's)")
                failures += 1
                break
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(block.text)
            print(f"   file {block.where()}: {named.group(1)}")
            continue
        if block.lang in COMPILED:
            print(f"   FAIL {block.where()}: a {block.lang} block must name its file on its first line "
                  f"('// file: NAME' or '# file: NAME') or carry a skip marker")
            failures += 1
            continue
        if block.lang not in SHELLS and block.lang != "python":
            continue
        start = time.monotonic()
        ok, output = (run_shell if block.lang in SHELLS else run_python)(block, work, env, namespace)
        status = "ok  " if ok else "FAIL"
        print(f"   {status} {block.where()} ({block.lang}, {time.monotonic() - start:.1f} s)")
        counts["passed"] += ok
        if not ok:
            failures += 1
            print("     | " + "\n     | ".join(output.rstrip().split("\n")[-40:]))
            break  # later blocks of the page build on this one
    for path, line, produced, shown in images:
        made = os.path.join(work, produced)
        if not os.path.isfile(made):
            if failures == 0:
                print(f"   FAIL {os.path.relpath(path, ROOT)}:{line}: the page's blocks did not write {produced}")
                failures += 1
        elif update_images:
            shutil.copyfile(made, os.path.join(DOCS, shown))
            print(f"   image {produced} -> docs/{shown}")
    # Removed, passed or failed, unless kept for a look (--keep, CBCT_KEEP_TEST_FILES=1).
    if keep:
        print(f"   (the page's directory is kept: {work})")
    else:
        shutil.rmtree(work, ignore_errors=True)
        if failures:
            print("   (the page's directory is removed; --keep or CBCT_KEEP_TEST_FILES=1 keeps it)")
    return failures, counts["passed"], counts["skipped"]


def run_shell(block, work, env, namespace):
    try:
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=work, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                timeout=BLOCK_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return False, f"{e.output or ''}\ntimed out after {BLOCK_TIMEOUT} s"
    return result.returncode == 0, result.stdout + f"\n(exit code {result.returncode})"


def run_python(block, work, env, namespace):
    # In this process (the interpreter the package was built for), in the page's namespace.
    saved_cwd, saved_environ = os.getcwd(), dict(os.environ)
    captured = io.StringIO()
    os.chdir(work)
    os.environ.clear()
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            exec(compile(block.text, block.where(), "exec"), namespace)
        return True, captured.getvalue()
    except BaseException:  # SystemExit too: a block must not end the run
        return False, captured.getvalue() + traceback.format_exc()
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="pages to run (default: README.md and docs/**/*.md)")
    parser.add_argument("--build", default=os.environ.get("CBCT_BUILD", os.path.join(ROOT, "build")))
    parser.add_argument("--update-images", action="store_true",
                        help="copy the pictures the pages make to docs/ (see the image marker)")
    parser.add_argument("--list", action="store_true", help="list the blocks and what would be done")
    parser.add_argument("--keep", action="store_true",
                        help="keep every page's directory (as CBCT_KEEP_TEST_FILES=1 does); by default they are removed")
    parser.add_argument("--docs", help="the documentation folder (default: docs/ of this repository)")
    args = parser.parse_args()
    if args.docs:
        global DOCS
        DOCS = os.path.abspath(args.docs)
    build = os.path.abspath(args.build)
    args.keep = args.keep or os.environ.get("CBCT_KEEP_TEST_FILES") == "1"
    if not args.list:
        missing = [p for p in ("bin/cbct-fdk", "python/conebeamct/__init__.py")
                   if not os.path.exists(os.path.join(build, p))]
        if missing:
            raise SystemExit(f"docs-examples: error: {build} lacks {', '.join(missing)}: build the apps and "
                             "the Python module first (scripts/docs.sh --examples does)")
        sys.path.insert(0, os.path.join(build, "python"))
    scratch = tempfile.mkdtemp(prefix="cbct-docs-examples-")
    bindir = os.path.join(scratch, "python-bin")
    os.makedirs(bindir)
    os.symlink(sys.executable, os.path.join(bindir, "python3"))
    os.symlink(sys.executable, os.path.join(bindir, "python"))
    failures = ran = passed = skipped = 0
    start = time.monotonic()
    try:
        for page in pages(args.pages):
            images = []
            blocks = parse(page, images)
            if not images and not any(b.skip is not None or b.lang in SHELLS | COMPILED | {"python"} or
                                      FILE_LINE.match(b.text.split("\n", 1)[0]) for b in blocks):
                continue  # listings only
            print(f"== {os.path.relpath(page, ROOT)}")
            if args.list:
                for b in blocks:
                    what = "skip: " + b.skip if b.skip is not None else (
                        "file" if FILE_LINE.match(b.text.split("\n", 1)[0]) else
                        "run" if b.lang in SHELLS | {"python"} else
                        "error: needs a file line or a skip marker" if b.lang in COMPILED
                        else "listing")
                    print(f"   {b.where()} {b.lang or '(none)'}: {what}")
                continue
            page_start = time.monotonic()
            f, p, s = run_page(page, blocks, images, build, scratch, args.update_images, args.keep)
            failures, passed, skipped = failures + f, passed + p, skipped + s
            ran += 1
            print(f"   ({time.monotonic() - page_start:.1f} s)")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    if not args.list:
        print(f"docs-examples: {ran} pages in {time.monotonic() - start:.0f} s")
        print(f"docs-examples: {passed} passed, {failures} failed, {skipped} skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
