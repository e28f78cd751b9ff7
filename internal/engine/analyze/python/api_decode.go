package python

import (
	"strings"
)

// The decode topic: decoders (hex, base64/32/85, compression, codecs) fold
// constant input and mark what they return as decoded, so executing it is
// executing encoded content (RULES.md principle 3).

func init() {
	registerAPI("decode", apiBytesFromhex, "bytes.fromhex", "bytearray.fromhex", "binascii.unhexlify", "binascii.a2b_hex", "base64.b16decode")
	registerAPI("decode", apiBase64B64decode, "base64.b64decode", "base64.standard_b64decode", "base64.decodebytes", "base64.decodestring", "binascii.a2b_base64", "base64.urlsafe_b64decode")
	registerAPI("decode", apiBase64B32decode, "base64.b32decode")
	registerAPI("decode", apiBase64A85decode, "base64.a85decode", "base64.b85decode")
	registerAPI("decode", apiZlibDecompress, "zlib.decompress", "gzip.decompress", "bz2.decompress")
	registerAPI("decode", apiCodecsDecode, "codecs.decode", "codecs.encode")
}

func apiBytesFromhex(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if s, ok := arg0.strVal(); ok && arg0 != nil {
		if out, ok := hexdecode(s); ok {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("hex")
		}
	}
	return decodedUnknown(arg0, "hex")
}

func apiBase64B64decode(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	if s, ok := arg0.strVal(); ok && arg0 != nil {
		if out, ok := b64decode(s, n == "base64.urlsafe_b64decode"); ok {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base64")
		}
	}
	return decodedUnknown(arg0, "base64")
}

func apiBase64B32decode(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if s, ok := arg0.strVal(); ok && arg0 != nil {
		if out, ok := b32decode(s); ok {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base32")
		}
	}
	return decodedUnknown(arg0, "base32")
}

func apiBase64A85decode(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	if s, ok := arg0.strVal(); ok && arg0 != nil && n == "base64.a85decode" {
		if out, ok := a85decode(s); ok {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base85")
		}
	}
	return (&sym{kind: "call"}).taint(arg0).decoded("base85")
}

func apiZlibDecompress(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	kind := strings.TrimSuffix(n, ".decompress")
	if s, ok := arg0.strVal(); ok && arg0 != nil {
		if out, ok := inflate(s, kind); ok {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded(kind)
		}
	}
	return (&sym{kind: "call"}).taint(arg0).decoded(kind)
}

func apiCodecsDecode(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	enc, _ := c.arg(1, "encoding").strVal()
	enc = strings.ToLower(strings.ReplaceAll(enc, "-", "_"))
	s, ok := arg0.strVal()
	if !ok || arg0 == nil {
		return nil
	}
	switch {
	case strings.HasPrefix(enc, "rot"):
		return (&sym{kind: "str", cnst: true, s: rot13(s)}).taint(arg0).decoded("rot13")
	case enc == "hex" || enc == "hex_codec":
		if n == "codecs.encode" {
			return (&sym{kind: "bytes", cnst: true, s: hexEncode(s)}).taint(arg0)
		}
		if out, ok := hexdecode(s); ok {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("hex")
		}
	case enc == "base64" || enc == "base64_codec":
		if n == "codecs.decode" {
			if out, ok := b64decode(s, false); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base64")
			}
		}
	case enc == "zlib" || enc == "zlib_codec":
		if out, ok := inflate(s, "zlib"); ok && n == "codecs.decode" {
			return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("zlib")
		}
	case enc == "" || strings.HasPrefix(enc, "utf") || enc == "ascii" || enc == "latin_1" || enc == "latin1":
		k := "str"
		if n == "codecs.encode" {
			k = "bytes"
		}
		return (&sym{kind: k, cnst: true, s: s}).taint(arg0)
	}
	return nil
}

// decodedUnknown is the result of a decoder applied to content that is not
// constant (read from a file, computed): its text is unknown, but it is
// still decoded content, so executing it is executing encoded content
// (`exec(b64decode(open('p.b64').read()))`). Without an argument it is
// nothing.
func decodedUnknown(arg0 *sym, kind string) *sym {
	if arg0 == nil {
		return nil
	}
	return (&sym{kind: "call"}).taint(arg0).decoded(kind)
}
