package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
	"github.com/toolwarden/toolwarden/internal/secrets"
)

// Key records are authenticated: every stored record carries an
// HMAC-SHA256 over all of its fields under a key derived from the
// deployment's master secret (secrets.PurposeKeyRecordMAC). Whoever can
// write the store but does not hold the secret — a workload that reached
// Redis, a tampered keys.json — cannot mint a key or raise a key's role:
// a record whose MAC is missing or wrong is refused, logged as a forgery
// attempt and counted. Records written before MACs existed are refused
// too (fail closed); the bootstrap admin from TOOLWARDEN_ADMIN_KEY is
// re-signed at every start, and without it a new admin key is printed.

// forgedRecords counts key records refused because their MAC did not verify.
var forgedRecords = prometheus.NewCounter(prometheus.CounterOpts{
	Name: "toolwarden_auth_forged_key_records_total",
	Help: "API key records refused because their MAC was missing or wrong (written by something without the server secret).",
})

func init() { telemetry.Registry().MustRegister(forgedRecords) }

// Option configures a key store.
type Option func(*Store) error

// WithSecretsKey signs and verifies records with a key derived from the
// deployment's master key (security.secrets_key). Every server sharing a
// store must use the same master key.
func WithSecretsKey(master []byte) Option {
	return func(s *Store) error {
		k, err := secrets.Derive(master, secrets.PurposeKeyRecordMAC)
		if err != nil {
			return err
		}
		s.macKey = k
		return nil
	}
}

// WithLogger sets where forgery attempts are logged (default slog.Default).
func WithLogger(l *slog.Logger) Option {
	return func(s *Store) error { s.log = l; return nil }
}

// processMACKey signs records of stores opened without WithSecretsKey: they
// verify in this process only, so such a store never trusts a record it
// did not write (tests and in-memory use).
var processMACKey = func() []byte {
	b := make([]byte, secrets.KeySize)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}()

func (s *Store) apply(opts []Option) error {
	s.macKey = processMACKey
	s.log = slog.Default()
	for _, o := range opts {
		if err := o(s); err != nil {
			return err
		}
	}
	return nil
}

// recordMAC is the MAC of every field of k but the MAC itself, each
// length-prefixed so no two records encode alike.
func recordMAC(key []byte, k Key) string {
	m := hmac.New(sha256.New, key)
	var n [4]byte
	for _, f := range []string{"toolwarden api key record v1", k.ID, k.Name, string(k.Role), k.Hash,
		k.CreatedAt.UTC().Format("2006-01-02T15:04:05.999999999Z07:00")} {
		binary.BigEndian.PutUint32(n[:], uint32(len(f)))
		m.Write(n[:])
		m.Write([]byte(f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// sign returns k with its MAC set.
func (s *Store) sign(k Key) Key {
	k.MAC = recordMAC(s.macKey, k)
	return k
}

// verified reports whether k's MAC is right; a wrong one is logged and
// counted as a forgery attempt.
func (s *Store) verified(k Key) bool {
	want := recordMAC(s.macKey, k)
	if k.MAC != "" && hmac.Equal([]byte(k.MAC), []byte(want)) {
		return true
	}
	forgedRecords.Inc()
	s.log.Warn("api key record refused: MAC missing or wrong (forgery attempt, or a record from before MACs or under another secrets key)",
		"key_id", k.ID, "role", k.Role, "mac_present", k.MAC != "")
	return false
}
