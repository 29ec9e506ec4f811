#!/usr/bin/env python3
"""Writes a large DOT graph to stdout for the vrender layout-bound tests (too large to keep as fixtures).

  make_dot.py chain N      one edge chain n0 -> n1 -> ... of N nodes (Graphviz's parser gives up past ~2500)
  make_dot.py clusters N   N sibling clusters with an edge each into the next (layout takes seconds at 3000)
"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "chain":
    print("digraph G {\n" + " -> ".join(f"n{i}" for i in range(n)) + ";\n}")
elif kind == "clusters":
    print("digraph G {\n" + "".join(f"subgraph cluster_{i} {{ n{i} -> n{i + 1}; }}\n" for i in range(n)) + "}")
else:
    sys.exit(f"unknown kind {kind!r}")
