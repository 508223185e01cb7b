#!/usr/bin/env python3
"""Tests of contract_schema.py's validation and config_id and of what
gen_contract.py renders from them (ctest hw.contract_generator).
Each validation test breaks one thing in a copy of accel.json."""
import copy
import json
import os
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import contract_schema  # noqa: E402
import gen_contract  # noqa: E402

with open(os.path.join(HERE, "accel.json"), encoding="utf-8") as f:
    ACCEL = json.load(f)


def opcode(contract, name):
    return next(op for op in contract["command"]["opcodes"] if op["name"] == name)


def field(contract, op_name, field_name):
    return next(f for f in opcode(contract, op_name)["fields"] if f["name"] == field_name)


def register(contract, name):
    return next(r for r in contract["registers"] if r["name"] == name)


class ValidationTest(unittest.TestCase):
    def assert_rejected(self, break_it, message):
        """break_it(contract) mutates a copy; the error must contain message."""
        contract = copy.deepcopy(ACCEL)
        break_it(contract)
        with self.assertRaises(contract_schema.ContractError) as caught:
            contract_schema.validate(contract)
        self.assertIn(message, str(caught.exception))

    def test_accel_json_is_valid(self):
        contract_schema.validate(copy.deepcopy(ACCEL))

    def test_field_past_the_command(self):
        self.assert_rejected(lambda c: field(c, "STORE", "shift").update(lsb=251),
                             "command opcode STORE field shift: bits 251..256 outside the command's 0..255")

    def test_negative_lsb(self):
        self.assert_rejected(lambda c: field(c, "CONV", "kh").update(lsb=-1), "outside the command's")

    def test_overlapping_fields(self):
        self.assert_rejected(lambda c: field(c, "CONV", "kw").update(lsb=62),
                             "command opcode CONV: fields kh (bits 60..63) and kw (bits 62..65) overlap")

    def test_field_overlapping_a_common_field(self):
        self.assert_rejected(lambda c: field(c, "ADD", "a_base").update(lsb=7),
                             "push_next (bits 7..7) and a_base (bits 7..22) overlap")

    def test_duplicate_opcode_code(self):
        self.assert_rejected(lambda c: opcode(c, "STORE").update(code=4),
                             "command opcodes: CONV and STORE share code 4")

    def test_duplicate_opcode_name(self):
        self.assert_rejected(lambda c: opcode(c, "STORE").update(name="CONV"),
                             "command opcodes: CONV and CONV share name CONV")

    def test_opcode_zero(self):
        self.assert_rejected(lambda c: opcode(c, "STORE").update(code=0), "(0 is never valid)")

    def test_duplicate_error_code(self):
        self.assert_rejected(lambda c: c["errors"][7].update(code=6),
                             "errors: DEADLOCK and BUS_ERROR share code 6")

    def test_misaligned_registers(self):
        self.assert_rejected(lambda c: register(c, "GIE").update(offset="0x06"),
                             "register GIE: offset 0x06 is not 4-byte aligned")
        self.assert_rejected(lambda c: register(c, "CYCLES").update(offset="0x54"),
                             "register CYCLES: offset 0x54 is not 8-byte aligned")

    def test_overlapping_registers(self):
        self.assert_rejected(lambda c: register(c, "ERROR").update(offset="0x38"),
                             "registers ERROR (0x38..0x3B) and CMD_COUNT (0x38..0x3F) overlap")

    def test_config_values(self):
        self.assert_rejected(lambda c: c["configs"]["kv260"].update(acc_rows=0),
                             "config kv260: acc_rows: must be a positive integer, got 0")
        self.assert_rejected(lambda c: c["configs"]["kv260"].update(clock_mhz=2.5),
                             "config kv260: clock_mhz: expected int, got 2.5")
        self.assert_rejected(lambda c: c["configs"]["kv260"].update(n=24),
                             "config kv260: n = 24 is not a power of two")
        self.assert_rejected(lambda c: c["configs"]["kv260"].pop("wgt_rows"), "missing ['wgt_rows']")
        self.assert_rejected(lambda c: c["configs"]["kv260"].update(dram_alignment=8),
                             "config kv260: dram_alignment = 8 must be one AXI beat (128 bits) and divide n = 32")

    def test_identical_configs(self):
        self.assert_rejected(lambda c: c["configs"].update(copy=dict(c["configs"]["kv260"])),
                             "configs kv260 and copy have the same config_id")

    def test_one_bit_signed_field(self):
        self.assert_rejected(lambda c: field(c, "CONV", "accumulate").update(signed=True),
                             "command opcode CONV field accumulate: signed field of width 1, needs at least 2")

    def test_unknown_queue(self):
        self.assert_rejected(lambda c: opcode(c, "ADD").update(queue="dma"), "queue 'dma' is not one of")


class ConfigIdTest(unittest.TestCase):
    def test_fnv1a_reference_values(self):
        self.assertEqual(contract_schema.fnv1a32(b""), 0x811C9DC5)
        self.assertEqual(contract_schema.fnv1a32(b"a"), 0xE40C292C)
        self.assertEqual(contract_schema.fnv1a32(b"foobar"), 0xBF9CF968)

    def test_any_layout_change_changes_the_id(self):
        base = contract_schema.validate(copy.deepcopy(ACCEL))
        before = contract_schema.config_id_of(base, "pynq_z2")
        changes = [
            lambda c: c.update(version={"major": 0, "minor": 2}),
            lambda c: c["configs"]["pynq_z2"].update(acc_rows=1024),
            lambda c: c["memory"].update(base_slots=8),
            lambda c: field(c, "STORE", "shift").update(lsb=201),
            lambda c: field(c, "STORE", "shift").update(signed=False),
            lambda c: register(c, "DMA_WRITE_BYTES").update(offset="0x98"),
            lambda c: opcode(c, "STORE").update(code=8),
        ]
        for change in changes:
            contract = copy.deepcopy(ACCEL)
            change(contract)
            contract_schema.validate(contract)
            self.assertNotEqual(contract_schema.config_id_of(contract, "pynq_z2"), before)
        # Descriptions are not part of the contract.
        contract = copy.deepcopy(ACCEL)
        contract["configs"]["pynq_z2"]["description"] = "another text"
        field(contract, "STORE", "shift")["doc"] = "another text"
        self.assertEqual(contract_schema.config_id_of(contract_schema.validate(contract), "pynq_z2"), before)


class RenderTest(unittest.TestCase):
    def test_cpp_and_sv_carry_the_same_config_id(self):
        contract = contract_schema.validate(copy.deepcopy(ACCEL))
        cpp = gen_contract.render_cpp(contract)
        for name in contract["configs"]:
            config_id = contract_schema.config_id_of(contract, name)
            self.assertIn(f"0x{config_id:08X}u}}", cpp)
            self.assertIn(f"localparam logic [31:0] CONFIG_ID = 32'h{config_id:08X};",
                          gen_contract.render_sv(contract, name))

    def test_cpp_header_includes_only_the_standard_library(self):
        cpp = gen_contract.render_cpp(contract_schema.validate(copy.deepcopy(ACCEL)))
        includes = [line for line in cpp.splitlines() if line.startswith("#include")]
        self.assertEqual(includes, ["#include <array>", "#include <cstddef>", "#include <cstdint>"])


if __name__ == "__main__":
    unittest.main()
