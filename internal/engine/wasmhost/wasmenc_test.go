package wasmhost

// A tiny WebAssembly binary encoder, enough to hand-assemble rule plugins
// the way a non-Go toolchain would emit them: no WASI, no runtime, just the
// ABI exports over one memory.

const (
	i32 byte = 0x7f
	i64 byte = 0x7e
)

type wfunc struct {
	name            string // export name
	params, results []byte
	body            []byte // instructions, without locals and final end
}

type wdata struct {
	offset int32
	bytes  []byte
}

type wimport struct {
	module, name    string
	params, results []byte
}

type wmodule struct {
	imports  []wimport
	funcs    []wfunc
	data     []wdata
	memPages uint32
	memMax   *uint32
	noMemory bool // do not export the memory
}

func uleb(v uint64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

func sleb(v int64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && b&0x40 == 0) || (v == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

func wname(s string) []byte { return append(uleb(uint64(len(s))), s...) }

func wvec(items [][]byte) []byte {
	out := uleb(uint64(len(items)))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func wsection(id byte, payload []byte) []byte {
	return append(append([]byte{id}, uleb(uint64(len(payload)))...), payload...)
}

func functype(params, results []byte) []byte {
	t := []byte{0x60}
	t = append(t, wvec(bytesEach(params))...)
	return append(t, wvec(bytesEach(results))...)
}

func bytesEach(bs []byte) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = []byte{b}
	}
	return out
}

// encode emits the module binary.
func (m wmodule) encode() []byte {
	var types, imports, funcIdx, exports, codes, datas [][]byte
	for _, im := range m.imports {
		imports = append(imports, append(append(append(wname(im.module), wname(im.name)...), 0x00), uleb(uint64(len(types)))...))
		types = append(types, functype(im.params, im.results))
	}
	for i, f := range m.funcs {
		funcIdx = append(funcIdx, uleb(uint64(len(types))))
		types = append(types, functype(f.params, f.results))
		exports = append(exports, append(append(wname(f.name), 0x00), uleb(uint64(len(m.imports)+i))...))
		body := append([]byte{0x00}, f.body...) // no locals
		body = append(body, 0x0b)
		codes = append(codes, append(uleb(uint64(len(body))), body...))
	}
	if !m.noMemory {
		exports = append(exports, append(wname("memory"), 0x02, 0x00))
	}
	for _, d := range m.data {
		seg := append([]byte{0x00, 0x41}, sleb(int64(d.offset))...)
		seg = append(seg, 0x0b)
		seg = append(seg, uleb(uint64(len(d.bytes)))...)
		datas = append(datas, append(seg, d.bytes...))
	}
	var mem []byte
	if m.memMax != nil {
		mem = append(append([]byte{0x01}, uleb(uint64(m.memPages))...), uleb(uint64(*m.memMax))...)
	} else {
		mem = append([]byte{0x00}, uleb(uint64(m.memPages))...)
	}
	out := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	out = append(out, wsection(1, wvec(types))...)
	if len(imports) > 0 {
		out = append(out, wsection(2, wvec(imports))...)
	}
	out = append(out, wsection(3, wvec(funcIdx))...)
	out = append(out, wsection(5, wvec([][]byte{mem}))...)
	out = append(out, wsection(7, wvec(exports))...)
	out = append(out, wsection(10, wvec(codes))...)
	if len(datas) > 0 {
		out = append(out, wsection(11, wvec(datas))...)
	}
	return out
}

func i32const(v int32) []byte { return append([]byte{0x41}, sleb(int64(v))...) }
func i64const(v int64) []byte { return append([]byte{0x42}, sleb(v)...) }

// packedConst is an i64.const of ptr<<32|len.
func packedConst(ptr, n uint32) []byte { return i64const(int64(uint64(ptr)<<32 | uint64(n))) }

// constPlugin describes a hand-assembled ABI plugin that answers describe and
// scan with constant JSON. Its alloc always hands out offset 4096 of its
// single page, which is enough for the small inputs the tests send.
type constPlugin struct {
	abiVersion int32
	describe   string
	scan       string
	scanBody   []byte // overrides the constant scan result
	// v2Out, when set, adds ABI v2's configure (answering 0) and scan_v2
	// (answering these bytes, an output layout); noScan drops v1's scan.
	v2Out  []byte
	noScan bool
}

const (
	constDescribeAt = 16
	constScanAt     = 2048
	constV2At       = 3072
	constAllocAt    = 4096
)

func (c constPlugin) module() wmodule {
	scanBody := c.scanBody
	if scanBody == nil {
		scanBody = packedConst(constScanAt, uint32(len(c.scan)))
	}
	m := wmodule{
		memPages: 1,
		funcs: []wfunc{
			{name: "abi_version", results: []byte{i32}, body: i32const(c.abiVersion)},
			{name: "describe", results: []byte{i64}, body: packedConst(constDescribeAt, uint32(len(c.describe)))},
			{name: "alloc", params: []byte{i32}, results: []byte{i32}, body: i32const(constAllocAt)},
			{name: "free", params: []byte{i32}, body: nil},
		},
		data: []wdata{{constDescribeAt, []byte(c.describe)}, {constScanAt, []byte(c.scan)}},
	}
	if !c.noScan {
		m.funcs = append(m.funcs, wfunc{name: "scan", params: []byte{i32, i32}, results: []byte{i64}, body: scanBody})
	}
	if c.v2Out != nil {
		m.funcs = append(m.funcs,
			wfunc{name: "configure", params: []byte{i32, i32}, results: []byte{i64}, body: i64const(0)},
			wfunc{name: "scan_v2", params: []byte{i32, i32}, results: []byte{i64}, body: packedConst(constV2At, uint32(len(c.v2Out)))})
		m.data = append(m.data, wdata{constV2At, c.v2Out})
	}
	return m
}

func (c constPlugin) wasm() []byte { return c.module().encode() }

const constDescribe = `{"name":"handmade","version":"0.1","rules":[{"id":"CONST_RULE","risk_type":"process_command","risk":"high","decision":"deny","description":"always fires"}]}`
const constScan = `{"findings":[{"rule_id":"CONST_RULE","evidence":"hand-assembled","line":1,"column":null,"message":"constant finding","metadata":null,"recommendation":""}]}`
