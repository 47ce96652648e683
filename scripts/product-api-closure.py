#!/usr/bin/env python3
"""Lists the types a library product's public API reaches that `import <product>` alone does not bring.

Usage: scripts/product-api-closure.py [PRODUCT...]   (after `swift build`; default: every library product)

For each product (a module of the same name here), the types its public declarations name are
followed through the public API of the types they name, over the symbol graphs
`swift symbolgraph-extract` writes from the debug build's modules (declarations, parameters,
generic constraints, conformances and inheritance). Each type reached that is declared in another
module of this package or of its dependencies (swift-log's `Logger`) is then named in a scratch
file that imports the product alone, and typechecked: a name the compiler cannot find (or finds
twice) is printed as `Product: Module.Type`.
Exit status 1 when any is printed. docs/architecture.md, "Products and examples".
"""
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def swift():
    return os.environ.get("SWIFT", "swift")


def library_products():
    """The manifest's library products, read from `swift package dump-package` (never a copied list)."""
    manifest = json.loads(subprocess.run([swift(), "package", "dump-package"], cwd=ROOT, capture_output=True,
                                         text=True, check=True).stdout)
    return [product["name"] for product in manifest["products"] if "library" in product["type"]]


def modules_dir():
    bin_path = subprocess.run([swift(), "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    return os.path.join(bin_path, "Modules")


def usr_top(usr):
    """(module, top-level name) of a Swift USR `s:<n><module><n><name>...`; None for others (stdlib, C)."""
    if not usr or not usr.startswith("s:"):
        return None
    rest, parts = usr[2:], []
    for _ in range(2):
        match = re.match(r"\d+", rest)
        if not match:
            return None
        count = int(match.group(0))
        rest = rest[len(match.group(0)):]
        parts.append(rest[:count])
        rest = rest[count:]
    return tuple(parts)


def main():
    products = sys.argv[1:] or library_products()
    modules = modules_dir()
    ours = {os.path.basename(p)[:-len(".swiftmodule")] for p in glob.glob(os.path.join(modules, "*.swiftmodule"))}
    includes = ["-I", modules] + [arg for d in glob.glob(os.path.join(ROOT, "Sources", "*", "include"))
                                  for arg in ("-I", d)]
    triple = json.loads(subprocess.run([swift() + "c", "-print-target-info"], capture_output=True, text=True,
                                       check=True).stdout)["target"]["triple"]
    graphs = tempfile.mkdtemp(prefix="product-api-")
    local = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ROOT, "Sources", "*"))
                   if os.path.basename(d) in ours)
    for module in local:
        subprocess.run([swift(), "symbolgraph-extract", "-module-name", module, "-output-dir", graphs,
                        "-minimum-access-level", "public", "-target", triple] + includes,
                       capture_output=True)
    # (graph module, (module, type)) -> types named by that type's public API, as that module declares it
    refs = collections.defaultdict(set)
    tops = collections.defaultdict(set)
    for path in glob.glob(os.path.join(graphs, "*.symbols.json")):
        graph = json.load(open(path))
        module = graph["module"]["name"]
        for symbol in graph["symbols"]:
            key = usr_top(symbol["identifier"]["precise"]) or (module, symbol["pathComponents"][0])
            if len(symbol["pathComponents"]) == 1:
                tops[key[0]].add(key[1])
            fragments = list(symbol.get("declarationFragments", []))
            for parameter in symbol.get("functionSignature", {}).get("parameters", []):
                fragments += parameter.get("declarationFragments", [])
            named = [usr_top(f.get("preciseIdentifier")) for f in fragments]
            named += [usr_top(c.get("rhsPrecise")) for c in symbol.get("swiftGenerics", {}).get("constraints", [])]
            refs[(module, key)].update(n for n in named if n)
        for relation in graph.get("relationships", []):
            source, target = usr_top(relation["source"]), usr_top(relation["target"])
            if source and target:
                refs[(module, source)].add(target)
    failed = False
    for product in products:
        seen, todo = set(), [(product, name) for name in tops[product]]
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            todo += [t for t in refs[(key[0], key)] | refs[(product, key)] if t[0] in ours and t not in seen]
        foreign = sorted(k for k in seen if k[0] != product)
        if not foreign:
            continue
        source = os.path.join(graphs, product + "_uses.swift")
        with open(source, "w") as out:
            out.write("import %s\n" % product)
            for index, (_, name) in enumerate(foreign):
                out.write("typealias _T%d = %s\n" % (index, name))
        result = subprocess.run([swift() + "c", "-typecheck", source] + includes, capture_output=True, text=True)
        for line in result.stdout.splitlines() + result.stderr.splitlines():
            match = re.match(r".*_uses\.swift:(\d+):\d+: error: (.*)", line)
            if match and ("cannot find" in match.group(2) or "ambiguous" in match.group(2)):
                module, name = foreign[int(match.group(1)) - 2]
                print("%s: %s.%s (%s)" % (product, module, name, match.group(2)))
                failed = True
    shutil.rmtree(graphs, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
