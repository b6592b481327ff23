"""The examples users read are executed: the README's Python section (every ```python block)
and the doctest examples in the docstrings of the package."""

import doctest
import os
import re

import pytest

import ccd
from conftest import REPO


def readme_python_blocks():
    text = (REPO / "README.md").read_text()
    start = text.index("\n## Python\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_readme_has_python_examples():
    assert len(readme_python_blocks()) >= 3


@pytest.mark.parametrize("index", range(len(readme_python_blocks())))
def test_readme_python_block_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = readme_python_blocks()[index]
    exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})


def test_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for name in ccd.__all__:
        obj = getattr(ccd, name)
        if not callable(obj):
            continue
        for test in finder.find(obj, name=f"ccd.{name}", globs={}):
            examples += len(test.examples)
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, result
    # Mesh, rigid_toc, vertex_face, edge_edge, DeformingScene and Robot carry examples
    assert examples >= 25, examples


def test_every_public_name_is_documented_and_typed():
    package = REPO / "crates" / "python" / "python" / "ccd"
    # the native module's names are typed in _ccd.pyi, the pure-Python ones in __init__.py
    stub = (package / "_ccd.pyi").read_text() + (package / "__init__.py").read_text()
    for name in ccd.__all__:
        obj = getattr(ccd, name)
        if callable(obj) and name != "CcdError":
            assert obj.__doc__ and len(obj.__doc__) > 40, name
        assert re.search(rf"\b{name}\b", stub), f"{name} missing from _ccd.pyi"
    assert os.path.isfile(REPO / "crates" / "python" / "python" / "ccd" / "py.typed")


def test_static_method_examples_run(tmp_path, monkeypatch):
    """doctest's finder skips the static methods of native classes (their ``__module__`` is
    not set): their examples are run here."""
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with_examples = []
    for name in ccd.__all__:
        cls = getattr(ccd, name)
        if not isinstance(cls, type):
            continue
        for attr, raw in vars(cls).items():
            if not isinstance(raw, staticmethod):
                continue
            doc = getattr(cls, attr).__doc__ or ""
            test = parser.get_doctest(doc, {}, f"ccd.{name}.{attr}", None, 0)
            if test.examples:
                with_examples.append(f"{name}.{attr}")
                runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, result
    assert {"Mesh.from_trimesh", "Motion.from_velocities"} <= set(with_examples), with_examples


def python_page_blocks():
    text = (REPO / "docs" / "python.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_python_page_has_examples():
    blocks = python_page_blocks()
    assert len(blocks) >= 4
    assert any("import trimesh" in b for b in blocks)


@pytest.mark.parametrize("index", range(len(python_page_blocks())))
def test_python_page_block_runs(index, tmp_path, monkeypatch):
    """docs/python.md's examples; the trimesh one needs trimesh (installed by .ci/python and
    .ci/wheel): a missing trimesh fails here, it is not skipped."""
    monkeypatch.chdir(tmp_path)
    code = python_page_blocks()[index]
    exec(compile(code, f"docs/python.md python block {index}", "exec"), {"__name__": "__docs__"})
