;; A toolwarden rule plugin written by hand in WebAssembly text against
;; ABI v1 (sdk/ABI.md): no toolchain, no WASI, no runtime. It denies any
;; content that contains the marker "twmarker-deny". Build:
;;   wat2wasm marker.wat -o marker.wasm
(module
  (memory (export "memory") 2)
  (data (i32.const 16) "{\"name\":\"marker\",\"version\":\"1.0.0\",\"rules\":[{\"id\":\"WAT_MARKER\",\"risk_type\":\"process_command\",\"risk\":\"high\",\"decision\":\"deny\",\"description\":\"content contains the marker twmarker-deny\"}]}")
  (data (i32.const 2048) "{\"findings\":[{\"rule_id\":\"WAT_MARKER\",\"evidence\":\"twmarker-deny\",\"message\":\"the marker twmarker-deny is present\"}]}")
  (data (i32.const 3072) "{\"findings\":[]}")
  (data (i32.const 4000) "twmarker-deny")
  (func (export "abi_version") (result i32) (i32.const 1))
  ;; (16 << 32) | length of the describe JSON
  (func (export "describe") (result i64) (i64.const 0x10000000b9))
  ;; One input buffer at 64 KiB, grown to fit: the host keeps one per instance.
  (func (export "alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.shr_u (i32.add (i32.add (local.get $n) (i32.const 65536)) (i32.const 65535)) (i32.const 16)))
    (if (i32.gt_u (local.get $need) (memory.size))
      (then
        (if (i32.eq (memory.grow (i32.sub (local.get $need) (memory.size))) (i32.const -1))
          (then unreachable))))
    (i32.const 65536))
  (func (export "free") (param i32))
  ;; scan: look for the 13-byte marker at 4000 anywhere in the input.
  (func (export "scan") (param $p i32) (param $n i32) (result i64)
    (local $i i32) (local $j i32) (local $end i32)
    (if (i32.lt_u (local.get $n) (i32.const 13))
      (then (return (i64.const 0xc000000000f))))
    (local.set $end (i32.add (local.get $p) (i32.sub (local.get $n) (i32.const 13))))
    (local.set $i (local.get $p))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (local.get $i) (local.get $end)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $cmp
            (br_if $mismatch (i32.ne (i32.load8_u (i32.add (local.get $i) (local.get $j)))
                                     (i32.load8_u (i32.add (i32.const 4000) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (if (i32.eq (local.get $j) (i32.const 13))
              (then (return (i64.const 0x80000000072))))
            (br $cmp)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i64.const 0xc000000000f)))
