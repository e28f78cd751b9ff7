package config

import (
	"strings"
	"testing"
)

// TestSecretsKeyFromEnv: TOOLWARDEN_SECRETS_KEY and
// TOOLWARDEN_REDIS_TLS_CA_FILE are read; a malformed key is a config error
// naming security.secrets_key without repeating the value.
func TestSecretsKeyFromEnv(t *testing.T) {
	good := strings.Repeat("ab", 32)
	t.Setenv("TOOLWARDEN_SECRETS_KEY", good)
	t.Setenv("TOOLWARDEN_REDIS_TLS_CA_FILE", "/etc/ca.pem")
	c, err := Load("")
	if err != nil || c.Security.SecretsKey != good || c.RedisTLSCAFile != "/etc/ca.pem" {
		t.Fatalf("load: %v %+v", err, c.Security)
	}
	t.Setenv("TOOLWARDEN_SECRETS_KEY", "not-a-key-value")
	_, err = Load("")
	if err == nil || !strings.Contains(err.Error(), "security.secrets_key") || strings.Contains(err.Error(), "not-a-key-value") {
		t.Fatalf("malformed key: %v", err)
	}
}
