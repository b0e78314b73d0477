package main

import "testing"

func TestVersionName(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	for _, tt := range []struct{ set, want string }{
		{"", "(development build)"},
		{"dev", "(development build)"},
		{"v1.2.3", "v1.2.3"},
	} {
		Version = tt.set
		if got := versionName(); got != tt.want {
			t.Errorf("with Version %q, versionName() = %q, want %q", tt.set, got, tt.want)
		}
	}
	for v, want := range map[string]bool{
		"v0.0.0-20261125120000-0123456789ab":         true,
		"v1.2.4-0.20261125120000-0123456789ab+dirty": true,
		"v1.2.3": false,
		"":       true,
	} {
		if got := pseudoVersion.MatchString(v); got != want {
			t.Errorf("pseudoVersion matches %q: %v, want %v", v, got, want)
		}
	}
}
