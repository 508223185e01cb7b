// Times ONNX Runtime (onnxruntime-node, CPU execution provider) on one model,
// the peer that bench/compare_ort.py measures Loom against.
//
//   node ort_bench.js MODEL.onnx --input NAME=FILE.npy [--input ...]
//        [--threads T] [--iters N] [--warmup W] [--output-dir DIR]
//        [--profile PREFIX]
//
// Graph optimization "all", intra-op threads T, one inter-op thread,
// sequential execution. Prints one JSON object: the median and every timed
// run in milliseconds, and with --output-dir writes each output as a float32
// .npy file named after it. With --profile, ONNX Runtime's own profiler
// records every run (warm-up included) into PREFIX_<date>.json (Chrome trace
// events; bench/op_breakdown.py reads them). Exits non-zero with one message
// on bad input.
"use strict";

const fs = require("fs");
const path = require("path");

function fail(message) {
  process.stderr.write(`ort_bench: error: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = {inputs: [], threads: 1, iters: 20, warmup: 3, outputDir: null, profile: null, model: null};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    const count = (name, min) => {
      const v = Number(value());
      if (!Number.isInteger(v) || v < min) fail(`${name} must be an integer >= ${min}`);
      return v;
    };
    if (a === "--input") {
      const spec = value();
      const eq = spec.indexOf("=");
      if (eq <= 0) fail(`--input wants NAME=FILE.npy, got '${spec}'`);
      args.inputs.push({name: spec.slice(0, eq), file: spec.slice(eq + 1)});
    } else if (a === "--threads") {
      args.threads = count("--threads", 1);
    } else if (a === "--iters") {
      args.iters = count("--iters", 1);
    } else if (a === "--warmup") {
      args.warmup = count("--warmup", 0);
    } else if (a === "--output-dir") {
      args.outputDir = value();
    } else if (a === "--profile") {
      args.profile = value();
    } else if (a.startsWith("--")) {
      fail(`unknown option ${a}`);
    } else if (args.model === null) {
      args.model = a;
    } else {
      fail(`unexpected argument '${a}'`);
    }
  }
  if (args.model === null) fail("no model given");
  return args;
}

// .npy (versions 1-3, little-endian float32/int64/int32, C order) -> {dtype, shape, data}.
const NPY_TYPES = {"<f4": ["float32", Float32Array], "<i8": ["int64", BigInt64Array], "<i4": ["int32", Int32Array]};

function readNpy(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    fail(`cannot read ${file}: ${e.message}`);
  }
  if (bytes.length < 10 || bytes.readUInt8(0) !== 0x93 || bytes.toString("latin1", 1, 6) !== "NUMPY")
    fail(`${file} is not a .npy file`);
  const major = bytes.readUInt8(6);
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString("latin1", start, start + headerLength);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) fail(`${file}: unreadable .npy header`);
  if (order[1] === "True") fail(`${file}: Fortran order is not supported`);
  const type = NPY_TYPES[descr[1]];
  if (!type) fail(`${file}: dtype ${descr[1]} is not supported (float32, int64, int32)`);
  const dims = shape[1].split(",").map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLength;
  const Array = type[1];
  if (bytes.length - offset < count * Array.BYTES_PER_ELEMENT) fail(`${file}: data shorter than its shape`);
  const data = new Array(count);
  const view = new Uint8Array(data.buffer);
  view.set(bytes.subarray(offset, offset + count * Array.BYTES_PER_ELEMENT));
  return {dtype: type[0], dims, data};
}

function writeNpyFloat32(file, dims, data) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(", ")}${dims.length === 1 ? "," : ""}), }`;
  const total = 10 + header.length + 1;
  header += " ".repeat((64 - (total % 64)) % 64) + "\n";
  const prefix = Buffer.alloc(10);
  prefix.writeUInt8(0x93, 0);
  prefix.write("NUMPY", 1, "latin1");
  prefix.writeUInt8(1, 6);
  prefix.writeUInt8(0, 7);
  prefix.writeUInt16LE(header.length, 8);
  const values = Float32Array.from(data, Number);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, "latin1"), Buffer.from(values.buffer)]));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require("onnxruntime-node");
  } catch (e) {
    fail(`onnxruntime-node is not installed (bench/compare_ort.py installs it): ${e.message}`);
  }
  let session;
  try {
    session = await ort.InferenceSession.create(args.model, {
      executionProviders: ["cpu"],
      graphOptimizationLevel: "all",
      intraOpNumThreads: args.threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      ...(args.profile === null ? {} : {enableProfiling: true, profileFilePrefix: args.profile}),
    });
  } catch (e) {
    fail(`cannot load ${args.model}: ${e.message}`);
  }
  const feeds = {};
  for (const input of args.inputs) {
    if (!session.inputNames.includes(input.name))
      fail(`the model has no input '${input.name}' (inputs: ${session.inputNames.join(", ")})`);
    const t = readNpy(input.file);
    feeds[input.name] = new ort.Tensor(t.dtype, t.data, t.dims);
  }
  for (const name of session.inputNames)
    if (!(name in feeds)) fail(`input '${name}' not given (--input ${name}=FILE.npy)`);

  let results;
  for (let i = 0; i < args.warmup; ++i) results = await session.run(feeds);
  const times = [];
  for (let i = 0; i < args.iters; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  if (args.profile !== null) session.endProfiling();
  const outputs = [];
  for (const name of session.outputNames) {
    const t = results[name];
    outputs.push({name, dims: t.dims, type: t.type});
    if (args.outputDir !== null) {
      fs.mkdirSync(args.outputDir, {recursive: true});
      writeNpyFloat32(path.join(args.outputDir, `${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.npy`), t.dims, t.data);
    }
  }
  process.stdout.write(JSON.stringify({
    model: args.model,
    onnxruntime: require("onnxruntime-node/package.json").version,
    threads: args.threads,
    iters: args.iters,
    warmup: args.warmup,
    median_ms: median(times),
    ...(args.profile === null ? {} : {profile_prefix: args.profile}),
    times_ms: times,
    outputs,
  }) + "\n");
}

main().catch((e) => fail(e.message));
