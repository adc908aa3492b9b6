#!/usr/bin/env python3
# Rewrites the "// expect error/warning L:C: ..." lines of .wk files from what the
# compiler reports now. Review the diff before committing: the runner test
# (tests/unit/lang_kernels_test.cpp) trusts these lines.
#   WAFERLAB_CLI=build/native/cli/waferlab-cli tests/kernels/update_expectations.py tests/kernels/errors/*.wk
import os, re, subprocess, sys

cli = os.environ.get("WAFERLAB_CLI", "build/native/cli/waferlab-cli")
for path in sys.argv[1:]:
    lines = [l for l in open(path).read().split("\n") if not re.search(r"// expect (error|warning) ", l)]
    src = "\n".join(lines).rstrip("\n") + "\n"
    open(path, "w").write(src)
    err = subprocess.run([cli, "check", path], capture_output=True, text=True).stderr
    found = []
    for l in err.split("\n"):
        m = re.match(r"^.*?\.wk:(\d+):(\d+): (error|warning): (.*)$", l)
        if m:
            found.append(f"// expect {m.group(3)} {m.group(1)}:{m.group(2)}: {m.group(4)}")
    if found:
        open(path, "a").write("\n" + "\n".join(found) + "\n")
    print(f"{path}: {len(found)} expectations")
