"""Loads and validates hw/contract/accel.json, the accelerator's
hardware/software contract, and computes each configuration's config_id.
gen_contract.py renders the result; Python 3 standard library only.

load_contract(path) and validate(parsed JSON) return the contract with
defaults filled in (field "signed" and "doc", register "bits" and integer
"offset") or raise ContractError naming the first problem.
"""
import json
import re

# The configuration parameters, in AccelConfig's member order, with their meaning.
CONFIG_KEYS = {
    "n": "array size: N x N MACs; buffer rows are N bytes (accumulator rows N int32)",
    "clock_mhz": "fabric clock",
    "axi_data_bits": "data width of the AXI master",
    "dram_alignment": "bytes DRAM addresses and pitches are multiples of: one AXI beat (no narrow transfers)",
    "inp_rows": "input buffer depth, rows of N bytes",
    "wgt_rows": "weight buffer depth, rows of N bytes",
    "acc_rows": "accumulator depth, rows of N int32",
    "param_rows": "parameter buffer depth, one record per output channel",
    "queue_depth": "command queue depth per unit",
    "requant_lanes": "channels requantized per cycle by the store unit",
}
# The fields every command has; DepsOf and Encode rely on these names.
COMMON_FIELDS = ["opcode", "pop_prev", "pop_next", "push_prev", "push_next"]
REGISTER_ACCESS = ("rw", "ro", "wo")
MAX_FIELD_WIDTH = 32  # struct members are uint32_t / int32_t

CONFIG_ID_DOC = """\
config_id = FNV-1a 32-bit (offset basis 0x811c9dc5, prime 0x01000193) over the
ASCII bytes of these lines, each ended by '\\n', numbers in decimal:
  version MAJOR MINOR
  config KEY VALUE             the config's parameters, keys sorted (no description)
  memory KEY VALUE             the memory section's integers, keys sorted
  command_bits BITS
  field common NAME LSB WIDTH signed|unsigned        common fields, in file order
  opcode NAME CODE QUEUE                             then each opcode in file order,
  field OPCODE NAME LSB WIDTH signed|unsigned        followed by its fields
  register NAME OFFSET BITS                          in file order
  error NAME CODE                                    in file order
so any change of a parameter or of the layout changes the id."""


class ContractError(Exception):
    pass


def fail(message):
    raise ContractError(message)


# ---------------------------------------------------------------- validation

def need(value, kind, where):
    """value, checked to be of kind (int excludes bool)."""
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        fail(f"{where}: expected {getattr(kind, '__name__', kind)}, got {json.dumps(value)}")
    return value


def need_name(value, pattern, where):
    need(value, str, where)
    if not re.fullmatch(pattern, value):
        fail(f"{where}: name {value!r} does not match {pattern}")
    return value


def need_positive(value, where):
    if need(value, int, where) <= 0:
        fail(f"{where}: must be a positive integer, got {value}")
    return value


def check_unique(items, key, what):
    seen = {}
    for item in items:
        if item[key] in seen:
            fail(f"{what}: {seen[item[key]]} and {item['name']} share {key} {item[key]}")
        seen[item[key]] = item["name"]


def check_no_overlap(spans, what):
    """spans: (begin, end exclusive, label); fails on the first two that overlap."""
    spans = sorted(spans)
    for (b0, e0, l0), (b1, e1, l1) in zip(spans, spans[1:]):
        if b1 < e0:
            fail(f"{what} {l0} and {l1} overlap")


def validate_field(field, bits, where):
    need(field, dict, where)
    name = need_name(field.get("name"), r"[a-z][a-z0-9_]*", where)
    where = f"{where} {name}"
    lsb = need(field.get("lsb"), int, f"{where}: lsb")
    width = need(field.get("width"), int, f"{where}: width")
    signed = need(field.get("signed", False), bool, f"{where}: signed")
    need(field.get("doc", ""), str, f"{where}: doc")
    if width < 1 or width > MAX_FIELD_WIDTH:
        fail(f"{where}: width {width} outside 1..{MAX_FIELD_WIDTH}")
    if lsb < 0 or lsb + width > bits:
        fail(f"{where}: bits {lsb}..{lsb + width - 1} outside the command's 0..{bits - 1}")
    if signed and width < 2:
        fail(f"{where}: signed field of width {width}, needs at least 2")
    field.setdefault("signed", False)
    field.setdefault("doc", "")


def field_span(field):
    msb = field["lsb"] + field["width"] - 1
    return (field["lsb"], msb + 1, f"{field['name']} (bits {field['lsb']}..{msb})")


def validate_command(command):
    need(command, dict, "command")
    bits = need_positive(command.get("bits"), "command: bits")
    if bits % 64:
        fail(f"command: bits {bits} is not a multiple of 64")
    common = need(command.get("common"), list, "command: common")
    for field in common:
        validate_field(field, bits, "command common field")
    names = [f["name"] for f in common]
    if names != COMMON_FIELDS:
        fail(f"command: common fields are {names}, expected {COMMON_FIELDS}")
    for field in common[1:]:
        if field["width"] != 1 or field["signed"]:
            fail(f"command common field {field['name']}: a dependency flag must be 1 unsigned bit")

    queues = need(command.get("queues"), dict, "command: queues")
    for queue, links in queues.items():
        need_name(queue, r"[a-z][a-z0-9_]*", "command: queues")
        need(links, dict, f"command queue {queue}")
        for side in ("prev", "next"):
            other = links.get(side)
            if other is not None and other not in queues:
                fail(f"command queue {queue}: {side} {other!r} is not a queue")

    opcodes = need(command.get("opcodes"), list, "command: opcodes")
    opcode_field = common[0]
    for op in opcodes:
        need(op, dict, "command opcode")
        name = need_name(op.get("name"), r"[A-Z][A-Z0-9_]*", "command opcode")
        where = f"command opcode {name}"
        code = need(op.get("code"), int, f"{where}: code")
        if not 1 <= code < (1 << opcode_field["width"]):
            fail(f"{where}: code {code} outside 1..{(1 << opcode_field['width']) - 1} (0 is never valid)")
        if op.get("queue") not in queues:
            fail(f"{where}: queue {op.get('queue')!r} is not one of {sorted(queues)}")
        need(op.get("doc", ""), str, f"{where}: doc")
        op.setdefault("doc", "")
        for field in need(op.get("fields"), list, f"{where}: fields"):
            validate_field(field, bits, f"{where} field")
        all_fields = common + op["fields"]
        check_unique(all_fields, "name", f"{where}: fields")
        if any(f["name"] == "deps" for f in op["fields"]):
            fail(f"{where}: a field may not be called deps")
        check_no_overlap([field_span(f) for f in all_fields], f"{where}: fields")
    check_unique(opcodes, "name", "command opcodes")
    check_unique(opcodes, "code", "command opcodes")


def validate_registers(registers):
    need(registers, list, "registers")
    spans = []
    for reg in registers:
        need(reg, dict, "register")
        name = need_name(reg.get("name"), r"[A-Z][A-Z0-9_]*", "register")
        where = f"register {name}"
        offset = reg.get("offset")
        if isinstance(offset, str):
            try:
                offset = int(offset, 0)
            except ValueError:
                fail(f"{where}: offset {reg['offset']!r} is not a number")
        offset = need(offset, int, f"{where}: offset")
        reg["offset"] = offset
        bits = reg.setdefault("bits", 32)
        if bits not in (32, 64):
            fail(f"{where}: bits {bits}, expected 32 or 64")
        if offset < 0 or offset % (bits // 8):
            fail(f"{where}: offset 0x{offset:02X} is not {bits // 8}-byte aligned")
        if reg.get("access") not in REGISTER_ACCESS:
            fail(f"{where}: access {reg.get('access')!r}, expected one of {REGISTER_ACCESS}")
        need(reg.get("doc", ""), str, f"{where}: doc")
        reg.setdefault("doc", "")
        end = offset + bits // 8
        spans.append((offset, end, f"{name} (0x{offset:02X}..0x{end - 1:02X})"))
    check_unique(registers, "name", "registers")
    check_no_overlap(spans, "registers")


def validate_errors(errors):
    need(errors, list, "errors")
    for error in errors:
        need(error, dict, "error")
        name = need_name(error.get("name"), r"[A-Z][A-Z0-9_]*", "error")
        code = need(error.get("code"), int, f"error {name}: code")
        if not 0 <= code <= 255:
            fail(f"error {name}: code {code} outside 0..255")
        need(error.get("doc", ""), str, f"error {name}: doc")
        error.setdefault("doc", "")
    check_unique(errors, "name", "errors")
    check_unique(errors, "code", "errors")
    if not any(e["code"] == 0 and e["name"] == "NONE" for e in errors):
        fail("errors: code 0 must be NONE")


def validate_configs(configs):
    need(configs, dict, "configs")
    if not configs:
        fail("configs: none")
    for name, config in configs.items():
        need_name(name, r"[a-z][a-z0-9_]*", "configs")
        need(config, dict, f"config {name}")
        keys = set(config) - {"description"}
        if keys != set(CONFIG_KEYS):
            missing, unknown = set(CONFIG_KEYS) - keys, keys - set(CONFIG_KEYS)
            fail(f"config {name}: missing {sorted(missing)}, unknown {sorted(unknown)}")
        for key in CONFIG_KEYS:
            need_positive(config[key], f"config {name}: {key}")
        if config["n"] & (config["n"] - 1):
            fail(f"config {name}: n = {config['n']} is not a power of two")
        # The DMA moves whole beats, and a channel block (N bytes) is the
        # smallest pitch, so the alignment is one beat and divides N.
        if config["dram_alignment"] * 8 != config["axi_data_bits"] or config["n"] % config["dram_alignment"]:
            fail(f"config {name}: dram_alignment = {config['dram_alignment']} must be one AXI beat "
                 f"({config['axi_data_bits']} bits) and divide n = {config['n']}")
        need(config.setdefault("description", ""), str, f"config {name}: description")


def load_contract(path):
    """The parsed and validated contract; ContractError names the first problem."""
    try:
        with open(path, encoding="utf-8") as f:
            contract = json.load(f)
    except OSError as e:
        fail(f"cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"not JSON: {e}")
    return validate(contract)


def validate(contract):
    """contract (parsed JSON), checked and with defaults filled in."""
    need(contract, dict, "top level")
    version = need(contract.get("version"), dict, "version")
    for part in ("major", "minor"):
        if not 0 <= need(version.get(part), int, f"version: {part}") <= 0xFFFF:
            fail(f"version: {part} {version[part]} outside 0..65535")
    validate_configs(contract.get("configs"))
    memory = need(contract.get("memory"), dict, "memory")
    for key, value in memory.items():
        need_name(key, r"[a-z][a-z0-9_]*", "memory")
        if not isinstance(value, str):
            need_positive(value, f"memory: {key}")
    validate_registers(contract.get("registers"))
    validate_errors(contract.get("errors"))
    validate_command(contract.get("command"))
    ids = {}
    for name in contract["configs"]:
        config_id = config_id_of(contract, name)
        if config_id in ids:
            fail(f"configs {ids[config_id]} and {name} have the same config_id 0x{config_id:08X}")
        ids[config_id] = name
    return contract


# ---------------------------------------------------------------- config_id

def memory_ints(contract):
    return {k: v for k, v in contract["memory"].items() if isinstance(v, int)}


def config_id_text(contract, config_name):
    """The canonical text config_id hashes (CONFIG_ID_DOC)."""
    version, command = contract["version"], contract["command"]
    config = contract["configs"][config_name]
    lines = [f"version {version['major']} {version['minor']}"]
    lines += [f"config {key} {config[key]}" for key in sorted(CONFIG_KEYS)]
    lines += [f"memory {key} {value}" for key, value in sorted(memory_ints(contract).items())]
    lines.append(f"command_bits {command['bits']}")

    def field_line(owner, f):
        return f"field {owner} {f['name']} {f['lsb']} {f['width']} {'signed' if f['signed'] else 'unsigned'}"

    lines += [field_line("common", f) for f in command["common"]]
    for op in command["opcodes"]:
        lines.append(f"opcode {op['name']} {op['code']} {op['queue']}")
        lines += [field_line(op["name"], f) for f in op["fields"]]
    lines += [f"register {r['name']} {r['offset']} {r['bits']}" for r in contract["registers"]]
    lines += [f"error {e['name']} {e['code']}" for e in contract["errors"]]
    return "".join(line + "\n" for line in lines)


def fnv1a32(data):
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def config_id_of(contract, config_name):
    return fnv1a32(config_id_text(contract, config_name).encode("ascii"))


def version_word(contract):
    return contract["version"]["major"] << 16 | contract["version"]["minor"]
