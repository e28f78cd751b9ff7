package plugins

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"aead.dev/minisign"
)

// Signature errors, each wrapped with detail by Verifier.Check.
var (
	ErrUnsigned         = errors.New("module is not signed and plugins.require_signature is true")
	ErrUntrustedSigner  = errors.New("signature is from a key that is not in plugins.trusted_keys")
	ErrInvalidSignature = errors.New("signature does not verify")
)

// Verifier checks minisign signatures (Ed25519; by default over the
// module's BLAKE2b-512 digest, minisign's prehashed mode) against the
// trusted public keys of the configuration. minisign because its keys and
// signatures are what `minisign -G` / `minisign -Sm plugin.wasm` (and
// signify-style tooling) already make, and aead.dev/minisign verifies
// them in pure Go; see RATIONALE.md.
type Verifier struct {
	keys    []minisign.PublicKey
	require bool
}

// NewVerifier parses the trusted keys: each the base64 line of a minisign
// public key ("RWQ…"), optionally preceded by its untrusted comment line.
func NewVerifier(trusted []string, require bool) (*Verifier, error) {
	v := &Verifier{require: require}
	for i, s := range trusted {
		var k minisign.PublicKey
		if err := k.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
			return nil, fmt.Errorf("plugins.trusted_keys[%d]: %w", i, err)
		}
		v.keys = append(v.keys, k)
	}
	if require && len(v.keys) == 0 {
		return nil, errors.New("plugins.require_signature is true but plugins.trusted_keys is empty: no upload could ever be accepted")
	}
	return v, nil
}

// KeyID formats a minisign key id as minisign prints it.
func KeyID(id uint64) string { return strings.ToUpper(strconv.FormatUint(id, 16)) }

// Check verifies sig over module. It returns the signer's key id, or ""
// for an unsigned module when signatures are not required. A signature
// that is present is always checked: an invalid or untrusted one is
// refused whether or not signatures are required.
func (v *Verifier) Check(module, sig []byte) (string, error) {
	if len(strings.TrimSpace(string(sig))) == 0 {
		if v.require {
			return "", ErrUnsigned
		}
		return "", nil
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidSignature, err)
	}
	for _, k := range v.keys {
		if k.ID() != s.KeyID {
			continue
		}
		if !minisign.Verify(k, module, sig) {
			return "", fmt.Errorf("%w with trusted key %s (module or signature altered)", ErrInvalidSignature, KeyID(k.ID()))
		}
		return KeyID(k.ID()), nil
	}
	return "", fmt.Errorf("%w: key id %s", ErrUntrustedSigner, KeyID(s.KeyID))
}
