package pagetext_test

import (
	"fmt"

	"tidings/pagetext"
)

func Example() {
	v1, _ := pagetext.Extract([]byte(`<title>Cats &amp; Co</title><h1>Cats</h1><p>Whiskers sleeps all day.</p>`), "text/html", "https://shrine.example/cats.html")
	v2, _ := pagetext.Extract([]byte(`<title>Cats &amp; Co</title><h1>Cats</h1><p>Whiskers purrs all day.</p><p>Tom joined us!</p>`), "text/html", "https://shrine.example/cats.html")
	d := pagetext.Compare(v1.Text, v2.Text)
	fmt.Println(v2.Title)
	fmt.Println(d.Summary())
	fmt.Print(d.HTML())
	// Output:
	// Cats & Co
	// Removed: Whiskers sleeps all day. Added: Whiskers purrs all day. / Tom joined us!
	// <p>Whiskers <del>sleeps</del><ins>purrs</ins> all day.</p>
	// <p><ins>Tom joined us!</ins></p>
}
