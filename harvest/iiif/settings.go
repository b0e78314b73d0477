package iiif

import (
	"flag"
	"fmt"
	"strings"
)

// Settings are the IIIF source's own settings.
type Settings struct {
	// Language is the language objects are named in when their label
	// has it; "" takes the label's text in no particular language, else
	// its first.
	Language string
}

// RegisterFlags registers the IIIF settings' flags on fs.
func (s *Settings) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.Language, "iiif-language", "", "the language (a BCP 47 tag: en, nl, fr-CA) IIIF objects are named in when their label has it")
}

// Validate checks that the language is a tag.
func (s *Settings) Validate() error {
	l := strings.TrimSpace(s.Language)
	if len(l) > 35 {
		return fmt.Errorf("--iiif-language %q is not a language tag (en, nl, fr-CA)", s.Language)
	}
	for _, r := range l {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("--iiif-language %q is not a language tag (en, nl, fr-CA)", s.Language)
		}
	}
	return nil
}
