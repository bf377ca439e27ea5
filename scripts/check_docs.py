#!/usr/bin/env python3
"""Checks the documentation: README.md has at most 150 lines, and every markdown link and
image in README.md and docs/**/*.md is relative and resolves to a file or directory of the
repository (and, for a link into a markdown file with #anchor, to one of its headings, by
GitHub's rule for heading anchors). Links inside code blocks and code spans are not links.

    python3 scripts/check_docs.py       # prints each problem, exit 1 if any

Run by ctest (docs.check) and by python/tests/test_docs.py. Standard library only.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 150

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)", re.M)
FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def doc_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def prose(text):
    """The text with fenced code blocks blanked and code spans removed (line count kept)."""
    out, in_fence = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
            out.append("")
            continue
        out.append("" if in_fence else re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return "\n".join(out)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped,
    spaces to '-'."""
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def heading_anchors(path):
    """Anchors of a markdown file's headings (code spans kept, fenced blocks skipped)."""
    seen, out, in_fence = {}, set(), False
    for line in path.read_text().split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(path):
    text = prose(path.read_text())
    for lineno, line in enumerate(text.split("\n"), 1):
        for m in LINK.finditer(line):
            yield lineno, m.group(1)
    for m in REF_DEF.finditer(text):
        yield text[:m.start()].count("\n") + 1, m.group(1)


def check():
    problems = []
    readme = ROOT / "README.md"
    n = len(readme.read_text().split("\n")) - (1 if readme.read_text().endswith("\n") else 0)
    if n > README_MAX_LINES:
        problems.append(f"README.md: {n} lines, at most {README_MAX_LINES}")
    cache = {}
    for f in doc_files():
        rel = f.relative_to(ROOT)
        for lineno, target in links(f):
            where = f"{rel}:{lineno}: link '{target}'"
            if not target:
                problems.append(f"{where}: empty")
                continue
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                problems.append(f"{where}: leaves the repository (links must be relative)")
                continue
            if target.startswith("/"):
                problems.append(f"{where}: absolute path (links must be relative)")
                continue
            file_part, _, anchor = target.partition("#")
            dest = (f.parent / file_part).resolve() if file_part else f
            try:
                dest.relative_to(ROOT)
            except ValueError:
                problems.append(f"{where}: points outside the repository")
                continue
            if not dest.exists():
                problems.append(f"{where}: {dest.relative_to(ROOT)} does not exist")
                continue
            if anchor and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = heading_anchors(dest)
                if anchor not in cache[dest]:
                    problems.append(f"{where}: no heading with anchor '#{anchor}' in {dest.relative_to(ROOT)}")
    return problems


def main():
    problems = check()
    for p in problems:
        print(p)
    if problems:
        print(f"check_docs.py: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_docs.py: {len(doc_files())} files, every link resolves; README.md within {README_MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
