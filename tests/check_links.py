#!/usr/bin/env python3
"""Every link and every *.md path the repository mentions must resolve inside it.

Checked: the targets of markdown links and images ([text](target), [name]: target) in
*.md files, and every word ending in .md in any text file (code comments, strings,
scripts, build files, markdown prose). A link resolves when it names a file or folder
relative to its file's folder, as a markdown viewer follows it; a mention in text may
also be relative to the repository root. Web addresses and in-page anchors are not
checked.

Usage: check_links.py REPO_ROOT. Exit 0 when all resolve, 1 otherwise, with one line per
broken reference: file:line: target.
"""
import os
import re
import sys

SKIP_DIRS = {".git", ".device", "node_modules", "__pycache__"}
TEXT_SUFFIXES = {
    ".md", ".cpp", ".hpp", ".h", ".cc", ".cu", ".cuh", ".sh", ".py", ".js", ".html", ".css",
    ".txt", ".cmake", ".ini", ".yml", ".yaml", ".json", ".in",
}
TEXT_NAMES = {"Makefile", "CMakeLists.txt"}

INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)")
MD_MENTION = re.compile(r"(?<![\w./~}-])((?:\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)*\.md)\b")
URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://\S+|www\.\S+")


def is_build_dir(name):
    return name == "build" or name.startswith("build-") or name.startswith("cmake-build")


def text_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not is_build_dir(d))
        for name in sorted(files):
            if name in TEXT_NAMES or os.path.splitext(name)[1] in TEXT_SUFFIXES:
                yield os.path.join(folder, name)


def resolves(root, folder, target, link):
    """A link resolves from its file's folder (as a markdown viewer follows it); a mention
    in text from its file's folder or from the repository root."""
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return True  # an anchor in the same page
    if target.startswith("/"):
        return False  # an absolute path names something outside the repository
    root = os.path.realpath(root)
    for base in (folder,) if link else (folder, root):
        path = os.path.realpath(os.path.join(base, target))
        if (path == root or path.startswith(root + os.sep)) and os.path.exists(path):
            return True
    return False


def is_external(target):
    return bool(re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith("//")


def check_file(root, path):
    broken = []
    folder = os.path.dirname(path)
    is_markdown = path.endswith(".md")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (UnicodeDecodeError, OSError):
        return broken
    for number, line in enumerate(lines, 1):
        links = []
        if is_markdown:
            links += [m.group(1) for m in INLINE_LINK.finditer(line)]
            m = REFERENCE_LINK.match(line)
            if m:
                links.append(m.group(1))
        without_links = INLINE_LINK.sub(" ", URL.sub(" ", line)) if is_markdown else URL.sub(" ", line)
        mentions = [m.group(1) for m in MD_MENTION.finditer(without_links)]
        for target, link in [(t, True) for t in links] + [(t, False) for t in mentions]:
            if is_external(target):
                continue
            if not resolves(root, folder, target, link):
                broken.append(f"{os.path.relpath(path, root)}:{number}: {target}")
    return broken


def main():
    if len(sys.argv) != 2:
        print("usage: check_links.py REPO_ROOT", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    broken = []
    checked = 0
    for path in text_files(root):
        checked += 1
        broken += check_file(root, path)
    for line in broken:
        print(line)
    if broken:
        print(f"{len(broken)} reference(s) do not resolve inside {root}", file=sys.stderr)
        return 1
    print(f"{checked} files checked: every link and *.md path resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
