// Package redisconn is the one place toolwarden turns a Redis URL into a
// client, so the execution store, its pub/sub, the API key store, the
// executors and the MCP gateway's store all honour the same URL forms:
//
//	redis://host:6379/0                 no auth, no TLS (loopback only, please)
//	redis://:password@host:6379/0       requirepass
//	redis://user:password@host:6379/0   ACL user
//	rediss://user:password@host:6380/0  the same over TLS (server certificate verified)
//
// and so a password never reaches a log line or an error message (Redact).
package redisconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"

	"github.com/redis/go-redis/v9"
)

// Options say how to reach Redis.
type Options struct {
	// URL is redis:// or rediss:// with optional user:password and db.
	URL string
	// TLSCAFile is a PEM bundle of CA certificates trusted for rediss://
	// in addition to the system roots (a private CA or a self-signed
	// server certificate). Ignored for redis://.
	TLSCAFile string
}

// ClientOptions parses o into go-redis options. Errors are redacted.
func ClientOptions(o Options) (*redis.Options, error) {
	ro, err := redis.ParseURL(o.URL)
	if err != nil {
		// url.Parse errors quote the whole URL, password included.
		return nil, fmt.Errorf("redis url %s: %s", Redact(o.URL), redactAll(err.Error(), o.URL))
	}
	if ro.TLSConfig != nil {
		ro.TLSConfig.MinVersion = tls.VersionTLS12
		if o.TLSCAFile != "" {
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			pem, err := os.ReadFile(o.TLSCAFile)
			if err != nil {
				return nil, fmt.Errorf("redis tls ca file: %w", err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("redis tls ca file %s: no PEM certificate in it", o.TLSCAFile)
			}
			ro.TLSConfig.RootCAs = pool
		}
	} else if o.TLSCAFile != "" {
		return nil, errors.New("redis tls ca file is set but the url is not rediss:// (TLS)")
	}
	return ro, nil
}

// NewClient returns a client for o; it does not dial yet.
func NewClient(o Options) (*redis.Client, error) {
	ro, err := ClientOptions(o)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(ro), nil
}

var userinfo = regexp.MustCompile(`(?i)^([a-z][a-z0-9+.-]*://[^/@]*?:)[^/]*@`)

// Redact returns the URL with its password replaced by "xxxxx", for logs
// and errors; a URL that does not parse is redacted textually.
func Redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return userinfo.ReplaceAllString(raw, "${1}xxxxx@")
}

// redactAll removes the password of raw from msg wherever it appears.
func redactAll(msg, raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = regexp.MustCompile(regexp.QuoteMeta(p)).ReplaceAllString(msg, "xxxxx")
		}
	}
	if m := userinfo.FindStringSubmatch(raw); m != nil {
		if full := userinfo.FindString(raw); full != "" {
			msg = regexp.MustCompile(regexp.QuoteMeta(full)).ReplaceAllString(msg, m[1]+"xxxxx@")
		}
	}
	return msg
}
