#!/usr/bin/env python3
"""Checks the board packaging where no Xilinx tool is installed.

  check_board.py REPO_DIR

- runs each Vivado script under tclsh with Vivado's commands stubbed
  (tcl_dry_run.tcl) and requires it to finish and to reach the commands that
  produce its outputs (package_xo; the block design, bitstream and .hwh);
- proves the dry run catches a broken script;
- requires kernel.xml's arguments to match the argument registers of
  hw/contract/accel.json (names aside: offsets, sizes, order, pointer or
  scalar), and link.cfg to name the kernel kernel.xml defines;
- runs `bash -n` on the build scripts.
Prints one line per check and "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

REQUIRED_CALLS = {
    "kv260/package_xo.tcl": ["ipx::package_project", "ipx::check_integrity -kernel", "ipx::save_core",
                             "package_xo -xo_path"],
    "pynq_z2/block_design.tcl": ["create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7",
                                 "create_bd_cell -type module -reference loom_accel",
                                 "connect_bd_net", "validate_bd_design",
                                 "launch_runs impl_1 -to_step write_bitstream",
                                 "loom_accel.bit", "loom_accel.hwh"],
}


def dry_run(board, script, args, log):
    return subprocess.run(["tclsh", os.path.join(board, "tcl_dry_run.tcl"), log, script] + args,
                          capture_output=True, text=True, timeout=60)


def main():
    repo = os.path.abspath(sys.argv[1])
    board = os.path.join(repo, "hw", "board")
    results = []

    def check(name, ok, why=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {why}" if why and not ok else ""))

    with tempfile.TemporaryDirectory() as tmp:
        for rel, calls in REQUIRED_CALLS.items():
            log = os.path.join(tmp, "calls.log")
            out = os.path.join(tmp, "out", "loom_accel.xo" if rel.endswith("xo.tcl") else "")
            p = dry_run(board, os.path.join(board, rel), [repo, out], log)
            check(f"{rel} runs under the dry run", p.returncode == 0, p.stderr.strip())
            text = open(log).read() if os.path.exists(log) else ""
            missing = [c for c in calls if c not in text]
            check(f"{rel} reaches its outputs", not missing, f"never called: {missing}")
        broken = os.path.join(tmp, "broken.tcl")
        with open(broken, "w") as f:
            f.write("set x 1\nif {$x {\n  create_project p\n")
        p = dry_run(board, broken, [], os.path.join(tmp, "broken.log"))
        check("the dry run rejects a script with unbalanced braces", p.returncode != 0)
        with open(broken, "w") as f:
            f.write("puts $undefined_variable\n")
        p = dry_run(board, broken, [], os.path.join(tmp, "broken.log"))
        check("the dry run rejects a script reading an unset variable", p.returncode != 0)

    contract = json.load(open(os.path.join(repo, "hw", "contract", "accel.json")))
    args = [r for r in contract["registers"] if r.get("arg")]
    kernel = ET.parse(os.path.join(board, "kv260", "kernel.xml")).getroot().find("kernel")
    xml_args = kernel.find("args").findall("arg")
    want = [(int(r["offset"], 16), r["bits"] // 8, r["name"] != "CMD_COUNT") for r in args]
    got = [(int(a.get("offset"), 16), int(a.get("size"), 16), a.get("addressQualifier") == "1") for a in xml_args]
    check("kernel.xml arguments match accel.json", want == got, f"accel.json {want}, kernel.xml {got}")
    check("kernel.xml uses ap_ctrl_hs", kernel.get("hwControlProtocol") == "ap_ctrl_hs")
    link = open(os.path.join(board, "kv260", "link.cfg")).read()
    check("link.cfg instantiates the kernel", f"nk={kernel.get('name')}:1" in link)

    for script in ("kv260/build.sh", "pynq_z2/build.sh"):
        p = subprocess.run(["bash", "-n", os.path.join(board, script)], capture_output=True, text=True)
        check(f"{script} parses", p.returncode == 0, p.stderr.strip())

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
