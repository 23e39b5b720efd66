"""Markdown tables become report pages (dogs.workflow.report_pages): tables rendered, title escaped, atomic write."""

from __future__ import annotations

from dogs.workflow.report_pages import main, markdown_page


def test_a_pipe_table_and_its_prose_become_html():
    page = markdown_page("# Table 1\n\nSome **prose**.\n\n| model | ours |\n|---|---|\n| a | 1.5 |\n", "T <1>")
    assert page.startswith("<!DOCTYPE html>") and "<title>T &lt;1&gt;</title>" in page
    assert "<h1>Table 1</h1>" in page and "<strong>prose</strong>" in page
    assert "<table>" in page and "<td>a</td>" in page and "<td>1.5</td>" in page


def test_the_command_writes_the_page(tmp_path):
    source, page = tmp_path / "t.md", tmp_path / "out" / "t.html"
    source.write_text("| x |\n|---|\n| 2 |\n")
    main([str(source), str(page), "--title", "x"])
    assert "<td>2</td>" in page.read_text() and not list(page.parent.glob(".*tmp*"))
