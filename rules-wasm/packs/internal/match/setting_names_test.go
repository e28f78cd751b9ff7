package match

import "testing"

// TestSettingNamesAreNotSecrets: a name that describes how a credential is
// handled (its length, lifetime, endpoint) does not hold one, while names
// that do are still secrets.
func TestSettingNamesAreNotSecrets(t *testing.T) {
	for name, want := range map[string]bool{
		"PASSWORD_MIN_LENGTH": false, "TOKEN_TTL": false, "SESSION_TIMEOUT": false,
		"AUTH_URL": false, "API_KEY_HEADER": false, "SECRET_NAME_PREFIX": false,
		"DB_PASSWORD": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"API_KEY": true, "NPM_TOKEN": true, "URL": false, "SECRET_KEY": true,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestCleanPathClimbsOutOfHome: ".." after "~" leaves the home instead of
// collapsing into the workspace-relative ".".
func TestCleanPathClimbsOutOfHome(t *testing.T) {
	for in, want := range map[string]string{
		"~/..": "/home", "~/../..": "/", "~/a/../.ssh": "~/.ssh", "~/a/..": "~", "./a/../b": "b", "~/.ssh": "~/.ssh",
	} {
		if got := CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}
