package client

import "testing"

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:9820":          "http://127.0.0.1:9820/rpc/v0",
		"http://127.0.0.1:9820/":         "http://127.0.0.1:9820/rpc/v0",
		"ws://host:1/rpc/v0":             "ws://host:1/rpc/v0",
		"https://h/custom/path?token=ab": "https://h/custom/path?token=ab",
	} {
		got, err := Endpoint(in)
		if err != nil || got != want {
			t.Errorf("Endpoint(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"127.0.0.1:9820", "ftp://x", "://"} {
		if _, err := Endpoint(bad); err == nil {
			t.Errorf("Endpoint(%q) accepted", bad)
		}
	}
}
