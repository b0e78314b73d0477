package web

// DiffCollection is diffCollection for the browser test, which is outside
// the package.
var DiffCollection = diffCollection

// ShowcaseSite is showcaseSite for the browser test.
var ShowcaseSite = showcaseSite

// LongSite is longSite for the browser test.
var LongSite = longSite
