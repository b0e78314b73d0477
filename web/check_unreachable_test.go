package web

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestCheckPageOfAnUnreachableSite: the verdict is one sentence a person
// can act on; the errors behind it are folded, and each document was
// asked for once.
func TestCheckPageOfAnUnreachableSite(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String() + "/"
	l.Close()
	a := newUIApp(t, nil, Options{})
	rec := a.client(t, "192.0.2.30").get(checkPath(gone))
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d\n%s", rec.Code, body)
	}
	want := `<h2 class="problem">tidings cannot follow this site: the site refused the connection: nothing answers at this address.</h2>`
	if !strings.Contains(body, want) {
		t.Errorf("the page lacks the verdict %q:\n%s", want, mainOf(body))
	}
	// Outside the folded details, no Go error.
	unfolded := mainOf(body)
	for strings.Contains(unfolded, "<details") {
		before, rest, _ := strings.Cut(unfolded, "<details")
		_, after, _ := strings.Cut(rest, "</details>")
		unfolded = before + after
	}
	if strings.Contains(unfolded, "dial tcp") || !strings.Contains(body, "dial tcp") {
		t.Errorf("the errors behind the verdict are not folded, or not there:\n%s", unfolded)
	}
	if !strings.Contains(body, "Details: 7 addresses tried, none answered") {
		t.Errorf("the folded attempts are not counted:\n%s", mainOf(body))
	}
	if n := strings.Count(body, "<li><code>"+gone+"robots.txt</code>"); n != 1 {
		t.Errorf("robots.txt listed as fetched %d times, want once", n)
	}
}
