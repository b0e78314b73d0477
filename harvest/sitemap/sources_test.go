package sitemap_test

// A follow asks every source, most precise first: the tests link them
// all, as the binary does.
import _ "tidings/harvest/sources"
