package policystore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// sealed is a revision as a backend stores it: the revision's JSON and,
// under a MAC key, its HMAC-SHA256, so that whoever can write the store but
// holds no master key (a Redis user, a file edited by hand) cannot install
// a policy: a record whose MAC does not verify is refused on read.
type sealed struct {
	Rev json.RawMessage `json:"rev"`
	MAC string          `json:"mac,omitempty"`
}

// ErrTampered is wrapped by errors for a stored record whose MAC does not
// verify.
var ErrTampered = errors.New("policy record fails authentication")

func seal(key []byte, rev Revision) ([]byte, error) {
	raw, err := json.Marshal(rev)
	if err != nil {
		return nil, fmt.Errorf("encode policy revision %d: %w", rev.Version, err)
	}
	s := sealed{Rev: raw}
	if key != nil {
		s.MAC = mac(key, raw)
	}
	return json.Marshal(s)
}

func unseal(key, data []byte) (Revision, error) {
	var s sealed
	if err := json.Unmarshal(data, &s); err != nil {
		return Revision{}, fmt.Errorf("decode policy record: %w", err)
	}
	if key != nil {
		want := mac(key, s.Rev)
		if !hmac.Equal([]byte(want), []byte(s.MAC)) {
			return Revision{}, ErrTampered
		}
	}
	var rev Revision
	if err := json.Unmarshal(s.Rev, &rev); err != nil {
		return Revision{}, fmt.Errorf("decode policy revision: %w", err)
	}
	if Digest([]byte(rev.YAML)) != rev.Digest {
		return Revision{}, fmt.Errorf("policy revision %d: digest does not match its document", rev.Version)
	}
	return rev, nil
}

func mac(key, data []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
