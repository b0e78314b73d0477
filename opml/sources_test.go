package opml

// An export names each collection's home page as its source's
// registration says: the tests link the sources, as the binary does.
import _ "tidings/harvest/sources"
