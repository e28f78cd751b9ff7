;; wat-miner: a toolwarden rule plugin written by hand in WebAssembly text
;; against ABI v1 (sdk/ABI.md). It needs no toolchain but wabt:
;;
;;   wat2wasm miner.wat -o wat-miner.wasm
;;
;; It reports WAT_CRYPTO_MINER (deny) when the scan input contains the bytes
;; "xmrig". A real plugin would judge the facts document; this one shows the
;; ABI in the fewest instructions: exports, packed pointers, the allocator.
;;
;; Memory layout: page 0 holds the constant JSON documents below; the host's
;; input buffer starts at page 1 and grows with memory.grow as needed.
(module
  (memory (export "memory") 2)

  ;; describe() result: PluginInfo JSON, 199 bytes at 16.
  (data (i32.const 16) "{\"name\":\"wat-miner\",\"version\":\"1.0.0\",\"rules\":[{\"id\":\"WAT_CRYPTO_MINER\",\"risk_type\":\"resource_abuse\",\"risk\":\"critical\",\"decision\":\"deny\",\"description\":\"starts a known cryptocurrency miner (xmrig)\"}]}")
  ;; scan() result with one finding, 177 bytes at 512.
  (data (i32.const 512) "{\"findings\":[{\"rule_id\":\"WAT_CRYPTO_MINER\",\"evidence\":\"xmrig\",\"message\":\"The content starts xmrig, a cryptocurrency miner.\",\"recommendation\":\"Do not run miners on this host.\"}]}")
  ;; scan() result without findings, 15 bytes at 1024.
  (data (i32.const 1024) "{\"findings\":[]}")
  ;; the needle, 5 bytes at 1100.
  (data (i32.const 1100) "xmrig")

  (global $input i32 (i32.const 65536))

  ;; pack returns ptr<<32 | len.
  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
      (i64.extend_i32_u (local.get $len))))

  (func (export "abi_version") (result i32) (i32.const 1))

  (func (export "describe") (result i64)
    (call $pack (i32.const 16) (i32.const 199)))

  ;; alloc hands out the one input buffer at page 1, growing memory to fit:
  ;; the host frees its previous input buffer before it asks for a larger
  ;; one, and every result lives in the constant page, so one buffer is all
  ;; this plugin ever needs.
  (func (export "alloc") (param $n i32) (result i32)
    (local $pages i32)
    ;; pages needed = ceil((65536 + n) / 65536) = 1 + ceil(n / 65536)
    (local.set $pages
      (i32.add (i32.const 1)
        (i32.shr_u (i32.add (local.get $n) (i32.const 65535)) (i32.const 16))))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then
        (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
          (then (unreachable)))))
    (global.get $input))

  ;; free ignores every pointer: nothing here is allocated per call.
  (func (export "free") (param $ptr i32))

  ;; scan searches the input for the needle, byte by byte.
  (func (export "scan") (param $ptr i32) (param $len i32) (result i64)
    (local $i i32) (local $j i32) (local $last i32)
    (if (i32.lt_u (local.get $len) (i32.const 5))
      (then (return (call $pack (i32.const 1024) (i32.const 15)))))
    (local.set $last (i32.sub (i32.add (local.get $ptr) (local.get $len)) (i32.const 5)))
    (local.set $i (local.get $ptr))
    (block $done
      (loop $outer
        (br_if $done (i32.gt_u (local.get $i) (local.get $last)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $inner
            (br_if $mismatch
              (i32.ne
                (i32.load8_u (i32.add (local.get $i) (local.get $j)))
                (i32.load8_u (i32.add (i32.const 1100) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_if $inner (i32.lt_u (local.get $j) (i32.const 5))))
          (return (call $pack (i32.const 512) (i32.const 177))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer)))
    (call $pack (i32.const 1024) (i32.const 15)))
)
