;; A rule plugin written by hand in WebAssembly text whose scan never
;; returns: the upload's self-test must refuse it at the deadline, before it
;; can reach a live scan. Build: wat2wasm spin.wat -o spin.wasm
(module
  (memory (export "memory") 2)
  (data (i32.const 16) "{\"name\":\"spin\",\"version\":\"1.0.0\",\"rules\":[{\"id\":\"WAT_SPIN\",\"risk_type\":\"unknown\",\"risk\":\"low\",\"decision\":\"allow\",\"description\":\"never reported: scan never returns\"}]}")
  (func (export "abi_version") (result i32) (i32.const 1))
  (func (export "describe") (result i64) (i64.const 0x10000000a6))
  (func (export "alloc") (param i32) (result i32) (i32.const 65536))
  (func (export "free") (param i32))
  (func (export "scan") (param i32 i32) (result i64)
    (loop $forever (br $forever))
    (i64.const 0)))
