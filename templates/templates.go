// Package templates holds the web UI's html/template files, embedded so the
// binary carries them.
package templates

import "embed"

// FS holds every template file.
//
//go:embed *.html *.css *.js
var FS embed.FS
