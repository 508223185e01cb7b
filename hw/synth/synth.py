#!/usr/bin/env python3
"""Synthesizes accelerator RTL with yosys and reports its FPGA resources.

  synth.py [--config pynq_z2|kv260] [--top MODULE] [--param NAME=VALUE ...]
           [--out DIR] [--json FILE] [--enforce]

Reads every hw/rtl/*.sv with the config's define (LOOM_CONFIG_<NAME>, which
selects its part of hw/rtl/loom_accel_config.svh), runs `synth_xilinx -flatten` for the config's
family (xc7 for the XC7Z020 of the PYNQ-Z2, xcup for the ZU5EV of the
KV260) and prints DSP, BRAM36-equivalent, LUT and FF counts against the
device's budget. Exits non-zero when yosys fails, and with --enforce also
when a count exceeds the budget. Run with /usr/bin/python3.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICES = {
    "pynq_z2": {"family": "xc7", "device": "XC7Z020", "dsp": 220, "bram36": 140, "lut": 53200, "ff": 106400},
    "kv260": {"family": "xcup", "device": "ZU5EV", "dsp": 1248, "bram36": 144, "lut": 117120, "ff": 234240},
}


def count(cells, prefixes):
    return sum(n for name, n in cells.items() if any(name.startswith(p) for p in prefixes))


def resources(cells):
    return {
        "dsp": count(cells, ("DSP48E1", "DSP48E2")),
        # A RAMB18 is half a BRAM36; URAM is counted separately.
        "bram36": count(cells, ("RAMB36",)) + count(cells, ("RAMB18",)) / 2,
        "uram": count(cells, ("URAM288",)),
        "lut": count(cells, ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6")),
        "lutram": count(cells, ("RAM32", "RAM64", "RAM128", "RAM256", "SRL")),
        "ff": count(cells, ("FDRE", "FDSE", "FDCE", "FDPE")),
        "carry": count(cells, ("CARRY4", "CARRY8")),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="pynq_z2", choices=sorted(DEVICES))
    parser.add_argument("--top", default="loom_accel_top")
    parser.add_argument("--param", action="append", default=[], help="NAME=VALUE for the top (chparam)")
    parser.add_argument("--out", default=os.path.join(ROOT, "build-synth"))
    parser.add_argument("--json", help="also write the counts to this file")
    parser.add_argument("--enforce", action="store_true", help="fail when over the device budget")
    args = parser.parse_args()

    dev = DEVICES[args.config]
    out = os.path.join(os.path.abspath(args.out), args.config)
    os.makedirs(out, exist_ok=True)
    rtl = sorted(os.path.join(ROOT, "hw", "rtl", f) for f in os.listdir(os.path.join(ROOT, "hw", "rtl"))
                 if f.endswith(".sv"))
    stat_file = os.path.join(out, f"{args.top}.stat.json")
    chparams = "".join(f"chparam -set {p.split('=', 1)[0]} {p.split('=', 1)[1]} {args.top}; " for p in args.param)
    # hw/rtl/loom_accel_config.svh holds every configuration; the define picks one.
    script = (f"read_verilog -sv -DLOOM_CONFIG_{args.config.upper()} {' '.join(rtl)}; {chparams}"
              f"synth_xilinx -flatten -family {dev['family']} -top {args.top}; "
              f"tee -q -o {stat_file} stat -json -top {args.top}")
    log = os.path.join(out, f"{args.top}.yosys.log")
    start = time.time()
    with open(log, "w") as f:
        p = subprocess.run(["yosys", "-q", "-p", script], stdout=f, stderr=subprocess.STDOUT)
    secs = time.time() - start
    if p.returncode != 0:
        sys.stderr.write(open(log).read()[-3000:])
        sys.exit(f"synth.py: error: yosys failed on {args.top} ({args.config}); log {log}")
    stat = json.load(open(stat_file))
    design = stat.get("design") or stat["modules"][next(iter(stat["modules"]))]
    r = resources(design.get("num_cells_by_type", {}))

    params = ", ".join(args.param) or "defaults"
    print(f"{args.top} ({params}) on {dev['device']} ({args.config}), yosys synth_xilinx -family {dev['family']}, "
          f"{secs:.0f} s")
    print("| resource | used | budget | share |")
    print("|---|---|---|---|")
    over = []
    for key, label in (("dsp", "DSP"), ("bram36", "BRAM36"), ("lut", "LUT"), ("ff", "FF")):
        share = r[key] / dev[key]
        print(f"| {label} | {r[key]:g} | {dev[key]} | {100 * share:.1f} % |")
        if share > 1:
            over.append(label)
    print(f"(also: {r['lutram']} LUTRAM/SRL, {r['uram']} URAM, {r['carry']} carry chains)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": args.config, "top": args.top, "params": args.param, "seconds": secs, **r}, f)
    if over and args.enforce:
        sys.exit(f"synth.py: error: over the {dev['device']} budget: {', '.join(over)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
