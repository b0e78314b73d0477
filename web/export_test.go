package web

// DiffCollection is diffCollection for the browser test, which is outside
// the package.
var DiffCollection = diffCollection
