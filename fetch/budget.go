package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// ErrBudgetSpent matches (errors.Is) the error of a request that a Budget
// stopped: refused before it was sent, refused at its headers, or cut off
// while its body was read.
var ErrBudgetSpent = errors.New("fetch: the download budget is spent")

// Budget is a number of bytes that several requests download between
// them, whichever goroutines make them: one site check's documents and
// pages, say, so that a site linking endless files costs a known amount
// however many links it has. Bytes count as received, before any
// decompression, response headers aside; bodies of error answers count
// too. A Budget is safe for concurrent use.
type Budget struct {
	name string
	max  int64
	used atomic.Int64
}

// NewBudget returns a budget of max bytes. name says whose it is in
// errors, as in "the check's download budget of 25 MiB is spent"; "" is
// "the download budget".
func NewBudget(name string, max int64) *Budget {
	if name == "" {
		name = "the download budget"
	}
	return &Budget{name: name, max: max}
}

// Max is the budget's size.
func (b *Budget) Max() int64 { return b.max }

// Used is what the requests have read so far; it may pass Max by a byte
// per request stopped, the byte that showed the body went on.
func (b *Budget) Used() int64 { return b.used.Load() }

// Left is what may still be read.
func (b *Budget) Left() int64 { return max(0, b.max-b.used.Load()) }

type budgetKey struct{}

// WithBudget returns a context under which every request of a Client
// reads its bodies out of b: the client is shared by every harvest of a
// server, so what one caller may spend travels with its context, as its
// observer does.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// budgetOf is the context's budget, nil when it has none.
func budgetOf(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// BudgetOf is the budget WithBudget gave ctx, nil when it has none: a
// caller that would set one leaves a caller's own in place.
func BudgetOf(ctx context.Context) *Budget { return budgetOf(ctx) }

// budgetError says which budget stopped a request, and how.
type budgetError struct {
	b   *Budget
	msg string // what happened, before the budget is named
}

func (e *budgetError) Error() string {
	return fmt.Sprintf("%s%s of %s is spent", e.msg, e.b.name, SizeString(e.b.max))
}

func (e *budgetError) Is(target error) bool { return target == ErrBudgetSpent }

// spent is the error of a request refused before it was sent.
func (b *Budget) spent() error {
	if b == nil || b.Left() > 0 {
		return nil
	}
	return &budgetError{b: b}
}

// admit refuses, at its headers, an answer announcing more than is left.
func (b *Budget) admit(contentLength int64) error {
	if b == nil || contentLength <= b.Left() {
		return nil
	}
	return &budgetError{b: b, msg: fmt.Sprintf("it announces %s, more than is left before ", SizeString(contentLength))}
}

// take reserves up to n bytes, fewer when less is left; concurrent
// readers cannot overdraw together.
func (b *Budget) take(n int64) int64 {
	for {
		used := b.used.Load()
		n := min(n, b.max-used)
		if n <= 0 {
			return 0
		}
		if b.used.CompareAndSwap(used, used+n) {
			return n
		}
	}
}

// reader counts r's bytes against b; with no budget it is r.
func (b *Budget) reader(r io.ReadCloser) io.ReadCloser {
	if b == nil {
		return r
	}
	return &budgetReader{r: r, b: b}
}

type budgetReader struct {
	r     io.ReadCloser
	b     *Budget
	spent error // sticky: readers above may ask again after an error
}

func (br *budgetReader) Read(p []byte) (int, error) {
	if br.spent != nil {
		return 0, br.spent
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := br.b.take(int64(len(p)))
	if n == 0 {
		// The budget is used up; a body that ends exactly here is still
		// whole, so one more byte decides.
		var one [1]byte
		m, err := br.r.Read(one[:])
		if m > 0 {
			br.b.used.Add(int64(m))
			br.spent = &budgetError{b: br.b}
			return 0, br.spent
		}
		return 0, err
	}
	m, err := br.r.Read(p[:n])
	if int64(m) < n {
		br.b.used.Add(int64(m) - n)
	}
	return m, err
}

func (br *budgetReader) Close() error { return br.r.Close() }
