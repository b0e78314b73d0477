package sitecheck

// A check asks every source, most precise first: the tests link them all,
// as the binary does.
import (
	"tidings/harvest"
	arcsource "tidings/harvest/arc"
	"tidings/harvest/listed"
	"tidings/harvest/resourcesync"
	"tidings/harvest/scp"
	_ "tidings/harvest/sources"
)

// The codes the sources give the problems they find, which the tests
// expect the check to show.
const (
	CodeNoUp           = resourcesync.CodeNoUp
	CodeNoDescribes    = resourcesync.CodeNoDescribes
	CodeNoDatetime     = resourcesync.CodeNoDatetime
	CodeNoChange       = resourcesync.CodeNoChange
	CodeUnknownChange  = resourcesync.CodeUnknownChange
	CodeBadDatetime    = resourcesync.CodeBadDatetime
	CodeNoFrom         = resourcesync.CodeNoFrom
	CodeFuture         = harvest.CodeFutureDates
	CodeSCPInvalid     = scp.CodeInvalid
	CodeARCInvalid     = arcsource.CodeInvalid
	CodeARCPageInvalid = arcsource.CodePageInvalid
	CodeBuildStamped   = listed.CodeBuildStamped
	stampWarning       = listed.StampWarning
)
