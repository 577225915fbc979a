"""The documentation's example runner (scripts/docs-examples.py) on small pages of its own: what runs,
what is skipped, what fails and how. Run by scripts/docs.sh --examples (scripts/test.sh) before the
documentation's own examples; needs no build (a stand-in build folder is made)."""

import os
import subprocess
import sys
import textwrap

import pytest

RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "docs-examples.py")
FENCE = "```"


@pytest.fixture
def site(tmp_path):
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    (build / "bin" / "cbct-fdk").write_text("")
    (build / "python" / "conebeamct").mkdir(parents=True)
    (build / "python" / "conebeamct" / "__init__.py").write_text("")
    docs = tmp_path / "docs"
    (docs / "images").mkdir(parents=True)
    return tmp_path


def page(site, name, text):
    path = site / "docs" / name
    path.write_text(textwrap.dedent(text).replace("'''", FENCE))
    return path


def run(site, *args):
    result = subprocess.run([sys.executable, RUNNER, "--build", str(site / "build"), "--docs", str(site / "docs"),
                             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout


def test_blocks_run_in_order_in_one_folder_and_namespace(site):
    p = page(site, "ok.md", """\
        # A page
        '''bash
        echo 41 > answer.txt
        '''
        '''python
        value = int(open("answer.txt").read()) + 1
        '''
        Listings are not run:
        '''text
        exit 1
        '''
        '''
        no language: not run either
        '''
        <!-- docs-examples: skip a reason -->
        '''bash
        exit 1
        '''
        '''python
        assert value == 42, value
        '''
        """)
    code, out = run(site, p)
    assert code == 0, out
    assert "3 passed, 0 failed, 1 skipped" in out
    assert "skip" in out and "a reason" in out


def test_a_failing_bash_block_fails_naming_the_page_and_line_and_stops_the_page(site):
    p = page(site, "bad.md", """\
        # Bad
        '''bash
        echo about to fail
        false
        echo never
        '''
        '''bash
        touch later
        '''
        """)
    code, out = run(site, p)
    assert code == 1
    assert "FAIL" in out and "bad.md:2" in out and "about to fail" in out and "never" not in out
    assert "0 passed, 1 failed" in out


def test_a_python_exception_or_exit_fails(site):
    for body in ("raise ValueError('wrong')", "import sys; sys.exit(0)"):
        p = page(site, "py.md", f"# Py\n{FENCE}python\n{body}\n{FENCE}\n")
        code, out = run(site, p)
        assert code == 1, out
        assert "1 failed" in out


def test_file_blocks_are_written_not_run_and_only_inside_the_page_folder(site):
    p = page(site, "files.md", """\
        # Files
        '''cpp
        // file: sub/hello.cxx
        int main() { return 0; }
        '''
        '''bash
        grep -q 'int main' sub/hello.cxx
        '''
        """)
    code, out = run(site, p)
    assert code == 0, out
    p = page(site, "escape.md", f"# Escape\n{FENCE}cpp\n// file: ../../escaped.cxx\nint x;\n{FENCE}\n")
    code, out = run(site, p)
    assert code == 1 and "outside the page's directory" in out
    assert not (site / "escaped.cxx").exists()


def test_a_cpp_block_without_a_file_line_fails(site):
    p = page(site, "cpp.md", f"# C++\n{FENCE}cpp\nint main() {{}}\n{FENCE}\n")
    code, out = run(site, p)
    assert code == 1 and "must name its file" in out


def test_a_skip_marker_needs_a_reason_and_applies_to_the_next_block_only(site):
    p = page(site, "noreason.md", f"# Skip\n<!-- docs-examples: skip -->\n{FENCE}bash\ntrue\n{FENCE}\n")
    code, out = run(site, p)
    assert code == 1 and "needs a reason" in out
    p = page(site, "once.md", f"""# Once
<!-- docs-examples: skip not this one -->
{FENCE}bash
exit 1
{FENCE}

Some text.

{FENCE}bash
exit 3
{FENCE}
""")
    code, out = run(site, p)
    assert code == 1 and "exit code 3" in out


def test_images_must_be_made_and_are_copied_on_request(site):
    text = f"""# Picture
<!-- docs-examples: image made.png images/shown.png -->
{FENCE}bash
printf 'png' > made.png
{FENCE}
"""
    p = page(site, "img.md", text)
    code, out = run(site, p)
    assert code == 0, out
    assert not (site / "docs" / "images" / "shown.png").exists()
    code, out = run(site, "--update-images", p)
    assert code == 0, out
    assert (site / "docs" / "images" / "shown.png").read_text() == "png"
    p = page(site, "noimg.md", text.replace("printf 'png' > made.png", "true"))
    code, out = run(site, p)
    assert code == 1 and "did not write made.png" in out


def test_included_files_blocks_run_in_place(site):
    (site / "other.md").write_text(f"# Other\n{FENCE}bash\necho included > inc.txt\n{FENCE}\n")
    p = page(site, "inc.md", f"""# Includes
{FENCE}{{include}} ../other.md
{FENCE}

{FENCE}bash
grep -q included inc.txt
{FENCE}
""")
    code, out = run(site, p)
    assert code == 0, out
    assert "2 passed" in out and "other.md:2" in out


def test_the_build_apps_and_package_come_first_on_the_paths(site):
    p = page(site, "env.md", f"""# Env
{FENCE}bash
case ":$PATH:" in *":{site}/build/bin:"*) ;; *) exit 1 ;; esac
test -L build && test -d build/bin
python3 -c "import conebeamct"
{FENCE}
""")
    code, out = run(site, p)
    assert code == 0, out
