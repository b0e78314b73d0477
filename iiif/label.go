package iiif

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Label is a IIIF language map (Presentation API 3.0, "Language of
// Property Values") in the order the document gives it: each language's
// values, joined. A Presentation 2 label (a plain string, or a list of
// {"@value", "@language"}) reads as the same.
type Label []LangText

// LangText is a label's text in one language; Lang is "none" for text in
// no language in particular.
type LangText struct {
	Lang string
	Text string
}

// Pick is the label's text for a reader of language lang: that language
// (or one of its variants: "en" finds "en-GB"), else the text in no
// language ("none"), else the first given; "" for an empty label.
func (l Label) Pick(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang != "" {
		for _, t := range l {
			if strings.EqualFold(t.Lang, lang) {
				return t.Text
			}
		}
		for _, t := range l {
			if base, _, _ := strings.Cut(strings.ToLower(t.Lang), "-"); base == lang || strings.HasPrefix(lang, base+"-") {
				return t.Text
			}
		}
	}
	for _, t := range l {
		if t.Lang == "none" {
			return t.Text
		}
	}
	if len(l) > 0 {
		return l[0].Text
	}
	return ""
}

// parseLabel reads a label in any of its shapes; nil when there is none.
func parseLabel(raw json.RawMessage) Label {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var l Label
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			l = l.add("none", []string{s})
		}
	case '[':
		var list []struct {
			Value flexString `json:"@value"`
			Lang  flexString `json:"@language"`
		}
		if json.Unmarshal(raw, &list) != nil {
			var plain []flexString
			if json.Unmarshal(raw, &plain) == nil {
				for _, p := range plain {
					l = l.add("none", []string{string(p)})
				}
			}
			break
		}
		for _, v := range list {
			l = l.add(string(v.Lang), []string{string(v.Value)})
		}
	case '{':
		l = orderedMap(raw)
	}
	return l
}

// orderedMap reads a language map keeping the order of its languages,
// which Go's maps lose: "else the first" means the first written.
func orderedMap(raw json.RawMessage) Label {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var l Label
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return l
		}
		lang, _ := t.(string)
		var vals json.RawMessage
		if dec.Decode(&vals) != nil {
			return l
		}
		var list []flexString
		var one string
		switch {
		case json.Unmarshal(vals, &list) == nil:
			texts := make([]string, 0, len(list))
			for _, v := range list {
				texts = append(texts, string(v))
			}
			l = l.add(lang, texts)
		case json.Unmarshal(vals, &one) == nil:
			l = l.add(lang, []string{one})
		}
	}
	return l
}

// add appends a language's texts, cleaned and capped; a language given
// twice keeps its first texts.
func (l Label) add(lang string, texts []string) Label {
	if len(l) >= MaxLanguages {
		return l
	}
	lang = strings.TrimSpace(lang)
	if lang == "" {
		lang = "none"
	}
	if len(lang) > 35 {
		return l // no BCP 47 tag is this long
	}
	for _, t := range l {
		if t.Lang == lang {
			return l
		}
	}
	var parts []string
	for _, t := range texts {
		if t = cleanText(t); t != "" {
			parts = append(parts, t)
		}
	}
	text := clip(strings.Join(parts, "; "), MaxLabelBytes)
	if text == "" {
		return l
	}
	return append(l, LangText{Lang: lang, Text: text})
}

// cleanText collapses white space and drops control characters and
// invalid UTF-8: a label is a line of text.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// clip cuts s to at most n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
