#!/usr/bin/env python3
"""The folder graph of the source tree has no cycle (docs/architecture.md, "The map").

A folder depends on another when one of its files includes a header of the other
(`#include "other/..."`, the project's root-relative form). Nodes are the top-level folders
and, inside them, the folders that are libraries of their own (a CMakeLists.txt of theirs
defines one), so config/toml_reader may not include config/ and deploy/observe may not
include deploy/. A cycle is printed with one including file per edge, and the exit status is 1.

    folder_cycles.py ROOT            check the tree at ROOT
    folder_cycles.py --self-test     the check finds a planted cycle and passes a clean tree

With ROOT, the layer order is checked too: docs/architecture.md's table under "The map" lists
the top-level folders bottom to top, and a folder may include only folders listed before it
(tests/ is not listed and may include anything). The map a newcomer reads stays the map.
"""
import os
import re
import sys
import tempfile

SOURCE_SUFFIXES = ('.hpp', '.cpp', '.h', '.cu', '.cuh')
NOT_SOURCE = {'build', 'stage', 'dist', 'runs', 'docs', 'examples', 'scripts', 'cmake'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LIBRARY = re.compile(r'^\s*(warpforge_library|add_library)\s*\(', re.M)


def library_folders(root):
    """Top-level folders, and nested folders whose CMakeLists.txt defines a library."""
    folders = set()
    for top in os.listdir(root):
        path = os.path.join(root, top)
        if not os.path.isdir(path) or top.startswith(('.', 'build')) or top in NOT_SOURCE:
            continue
        folders.add(top)
        for dirpath, _, files in os.walk(path):
            if dirpath != path and 'CMakeLists.txt' in files:
                with open(os.path.join(dirpath, 'CMakeLists.txt'), errors='replace') as f:
                    if LIBRARY.search(f.read()):
                        folders.add(os.path.relpath(dirpath, root))
    return folders


def owner(path, folders):
    """The innermost library folder holding `path` (a root-relative file or header path)."""
    parts = path.split('/')
    for n in range(len(parts) - 1, 0, -1):
        candidate = '/'.join(parts[:n])
        if candidate in folders:
            return candidate
    return None


def folder_edges(root, folders):
    edges = {}
    for folder in sorted(folders):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                file = os.path.relpath(os.path.join(dirpath, name), root)
                source = owner(file, folders)
                with open(os.path.join(root, file), errors='replace') as f:
                    for line in f:
                        match = INCLUDE.match(line)
                        target = match and owner(match.group(1), folders)
                        if target and target != source:
                            edges.setdefault(source, {}).setdefault(target, file)
    return edges


def cycles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def documented_layers(root):
    """Top-level folders in the order of the map's table in docs/architecture.md."""
    path = os.path.join(root, 'docs', 'architecture.md')
    if not os.path.exists(path):
        return None
    text = open(path).read()
    table = text[text.index('## The map'):]
    return re.findall(r'^\| `([a-z_]+)/` \|', table, re.M)


def layer_violations(edges, layers):
    """Includes of a top-level folder listed at or after the includer's place."""
    place = {folder: n for n, folder in enumerate(layers)}
    found = []
    for source, targets in sorted(edges.items()):
        for target, file in sorted(targets.items()):
            a, b = source.split('/')[0], target.split('/')[0]
            if a == b or a not in place:
                continue
            if b not in place:
                found.append(f'{a} includes {b}, which the map does not list ({file})')
            elif place[b] > place[a]:
                found.append(f'{a} includes {b}, listed above it in the map ({file})')
    return found


def check(root):
    folders = library_folders(root)
    edges = folder_edges(root, folders)
    layers = documented_layers(root)
    if layers is not None:
        unlisted = sorted(f for f in folders if '/' not in f and f != 'tests' and f not in layers)
        wrong = layer_violations(edges, layers) + [f'{f}/ is not in the map' for f in unlisted]
        for line in wrong:
            print('layer order: ' + line)
        if wrong:
            return 1
    found = cycles(edges)
    for component in found:
        print('folder cycle: ' + ' <-> '.join(component))
        for a in component:
            for b in component:
                if b in edges.get(a, {}):
                    print(f'  {a} -> {b}  ({edges[a][b]})')
    if not found:
        print(f'no folder cycle among {len(folders)} folders')
    return 1 if found else 0


def self_test():
    def tree(files):
        root = tempfile.mkdtemp(prefix='folder-cycles-')
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), 'w') as f:
                f.write(text)
        return root

    lib = 'warpforge_library(x SOURCES a.cpp)\n'
    clean = tree({'a/x.hpp': '#include "b/y.hpp"\n', 'b/y.hpp': '#include <vector>\n'})
    planted = tree({'a/x.hpp': '#include "b/y.hpp"\n', 'b/y.cpp': '#include "a/x.hpp"\n'})
    nested = tree({'c/CMakeLists.txt': lib, 'c/inner/CMakeLists.txt': lib,
                   'c/inner/z.hpp': '#include "c/w.hpp"\n', 'c/w.cpp': '#include "c/inner/z.hpp"\n'})
    layered_map = '## The map\n\n| folder | what |\n| --- | --- |\n| `b/` | low |\n| `a/` | high |\n'
    downward = tree({'docs/architecture.md': layered_map, 'a/x.hpp': '#include "b/y.hpp"\n',
                     'b/y.hpp': '\n'})
    upward = tree({'docs/architecture.md': layered_map, 'b/y.hpp': '#include "a/x.hpp"\n',
                   'a/x.hpp': '\n'})
    unmapped = tree({'docs/architecture.md': layered_map, 'c/z.hpp': '\n'})
    results = [check(clean) == 0, check(planted) == 1, check(nested) == 1,
               check(downward) == 0, check(upward) == 1, check(unmapped) == 1]
    print('self-test', 'passed' if all(results) else f'FAILED {results}')
    return 0 if all(results) else 1


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else '.'))
