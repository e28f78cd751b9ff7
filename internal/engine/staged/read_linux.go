package staged

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// readBeneath opens root/rel with openat2(RESOLVE_BENEATH): the kernel
// refuses any resolution — "..", an absolute symlink, a relative one — that
// would leave root, so a link planted in the workspace (x.py ->
// /etc/shadow) is never followed. The open does not block on a fifo and
// only a regular file is read.
func readBeneath(root, rel string, max int64) Read {
	r := Read{File: File{Path: rel}}
	rootFd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		r.State = StateAbsent // a workspace not created yet holds nothing
		return r
	}
	if err != nil {
		r.State = StateUnreadable
		return r
	}
	defer unix.Close(rootFd)
	fd, err := unix.Openat2(rootFd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		r.State = StateAbsent
		return r
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		r.State = StateOutside
		return r
	default:
		r.State = StateUnreadable
		return r
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	if IsListing(rel) {
		return listDir(f, r, max)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		r.State = StateUnreadable
		return r
	case st.IsDir():
		r.State = StateDir
		return r
	case !st.Mode().IsRegular() || st.Size() > MaxHashBytes:
		r.State = StateUnreadable
		return r
	}
	h := sha256.New()
	var buf []byte
	if max > 0 {
		buf = make([]byte, 0, min(st.Size(), max))
	}
	n, err := io.Copy(h, io.TeeReader(io.LimitReader(f, MaxHashBytes+1), &capped{b: &buf, max: max}))
	if err != nil || n > MaxHashBytes {
		r.State = StateUnreadable
		return r
	}
	r.State, r.Size, r.SHA256 = StateFile, n, hex.EncodeToString(h.Sum(nil))
	r.Content, r.Truncated = buf, n > int64(len(buf))
	return r
}

// listDir reads the names in the directory f (a listing path): sorted,
// newline-joined, hashed; at most MaxListNames of them, more is
// StateUnreadable (too many to vouch for).
func listDir(f *os.File, r Read, max int64) Read {
	st, err := f.Stat()
	if err != nil || !st.IsDir() {
		r.State = StateUnreadable
		if err == nil {
			r.State = StateAbsent // a file where a directory is looked for: the program finds no directory
		}
		return r
	}
	names, err := f.Readdirnames(MaxListNames + 1)
	if (err != nil && !errors.Is(err, io.EOF)) || len(names) > MaxListNames {
		r.State = StateUnreadable
		return r
	}
	for _, n := range names {
		if strings.ContainsRune(n, '\n') {
			// "a\nb.pth" would read as two names and the real file would
			// go unscanned: such a directory is not vouched for.
			r.State = StateUnreadable
			return r
		}
	}
	body := []byte(joinNames(names))
	r.State, r.Size, r.SHA256 = StateListing, int64(len(names)), digest(body)
	if max > 0 {
		r.Content = body
	}
	return r
}

// capped keeps the first max bytes written to it.
type capped struct {
	b   *[]byte
	max int64
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - int64(len(*c.b)); room > 0 {
		*c.b = append(*c.b, p[:min(int64(len(p)), room)]...)
	}
	return len(p), nil
}
