#!/usr/bin/env python3
"""Includes point one way: apps -> actors -> (messages, checkpoint, kernels) -> (io, host) -> model.

Usage: check_layers.py ROOT

For every C++/CUDA source under the layered folders, reads the project includes
("dir/...") and fails when one points upward or sideways across a layer, and when a
file under model/ includes an OS header (model/ is the brain model only: no file, no
OS). Prints each violation as file:line and exits 1; exits 0 when there is none.
"""
import os
import re
import sys

# What each top-level folder may include (besides itself).
ALLOWED = {
    "model": set(),
    "io": {"model"},
    "host": {"model"},
    "kernels": {"io", "host", "model"},
    "messages": {"io", "host", "model"},
    "checkpoint": {"io", "host", "model"},
    "actors": {"messages", "checkpoint", "kernels", "io", "host", "model"},
    "python": {"actors", "messages", "checkpoint", "kernels", "io", "host", "model", "apps"},
    "apps": {"actors", "messages", "checkpoint", "kernels", "io", "host", "model"},
}
# python/ may use the program's option parsing and its build version, nothing else of apps/.
PYTHON_APPS = ("apps/flysim/options/", "apps/flysim/process/build_version.hpp")
PROJECT_DIRS = set(ALLOWED) | {"tests", "bench"}
SOURCE_EXT = (".hpp", ".cpp", ".h", ".cc", ".cu", ".cuh")
# OS headers that model/ may not include.
MODEL_OS_HEADER = re.compile(r"^(unistd\.h|sys/.*|fcntl\.h|dlfcn\.h|pthread\.h|sched\.h|fstream|filesystem)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def check(root):
    problems = []
    for top in sorted(ALLOWED):
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        kind, target = m.group(1), m.group(2)
                        if kind == "<":
                            if top == "model" and MODEL_OS_HEADER.match(target):
                                problems.append(f"{rel}:{number}: model/ includes the OS header <{target}>")
                            continue
                        first = target.split("/", 1)[0]
                        if "/" not in target or first not in PROJECT_DIRS or first == top:
                            continue
                        if first not in ALLOWED[top]:
                            problems.append(f'{rel}:{number}: {top}/ may not include "{target}"')
                        elif top == "python" and first == "apps" and not target.startswith(PYTHON_APPS):
                            problems.append(f'{rel}:{number}: python/ may include only {" and ".join(PYTHON_APPS)} of apps/, not "{target}"')
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against the layering", file=sys.stderr)
        return 1
    print("layers: every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
