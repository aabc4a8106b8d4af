package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Stdin is the argument that names standard input.
const Stdin = record.Stdin

// headBytes is how much of a (decompressed) input detection looks at.
const headBytes = record.HeadBytes

// input is one file being ingested: its raw bytes are hashed and counted as
// they are read (so the stored SHA-256 is of exactly the bytes ingested, and
// no pass runs before decoding), then decompressed when they are gzip or
// zstd, then buffered so detection can peek at the head.
type input struct {
	name        string // a path as given, or what standard input is called (--name, stdin-N)
	path        string // "" for stdin
	size        int64  // raw size in bytes; -1 when unknown (a pipe)
	compression string // "", "gzip" or "zstd"
	head        []byte // the first headBytes of the decompressed content
	guard       *guard // record and decompression caps (limits.go)
	// raw are the canonical columns a --map sets: canonical NDJSON and CSV
	// keep a source field of that name undecoded, in attrs (mapraw.go)
	mapRaw *record.FieldSet

	file   *os.File
	raw    *hashingReader
	br     *bufio.Reader
	closes []func()
	spool  string // a temporary copy for formats that need random access
	hashFn func() string
}

// openInput opens name (a path or "-") for reading, under the caps of lim.
func openInput(name string, stdin io.Reader, lim limits) (*input, error) {
	in := &input{name: name, size: -1}
	var src io.Reader
	if name == Stdin {
		if stdin == nil {
			return nil, errors.New("no standard input to read")
		}
		src = stdin
	} else {
		st, err := os.Stat(name)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, errors.New("is a directory")
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		in.file, in.path, in.size = f, name, st.Size()
		in.closes = append(in.closes, func() { f.Close() })
		src = f
	}
	in.raw = &hashingReader{r: src, h: sha256.New()}
	in.hashFn = in.raw.sum
	rawBuf := bufio.NewReaderSize(in.raw, 1<<20)
	magic, _ := rawBuf.Peek(4)
	var dec io.Reader = rawBuf
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(rawBuf)
		if err != nil {
			in.close()
			return nil, record.LineErr(0, "bad gzip data: %v", err)
		}
		in.compression, dec = "gzip", zr
		in.closes = append(in.closes, func() { zr.Close() })
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(rawBuf, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			in.close()
			return nil, record.LineErr(0, "bad zstd data: %v", err)
		}
		in.compression, dec = "zstd", zr
		in.closes = append(in.closes, zr.Close)
	}
	in.guard = &guard{r: &decompressErr{r: dec, kind: in.compression}, max: lim.record(), ratio: lim.ratio()}
	if in.compression != "" {
		in.guard.raw = in.raw.n.Load
	}
	in.br = bufio.NewReaderSize(in.guard, 1<<20)
	head, err := in.br.Peek(headBytes)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		in.close()
		return nil, err
	}
	in.head = head
	return in, nil
}

// decompressErr names the compression in a read error of the decompressor.
type decompressErr struct {
	r    io.Reader
	kind string
}

func (d *decompressErr) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF && d.kind != "" {
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			err = fmt.Errorf("bad %s data: %w", d.kind, err)
		}
	}
	return n, err
}

// DetectName is the name detection sees: without a compression extension.
func (in *input) DetectName() string {
	n := in.name
	for _, ext := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		if strings.HasSuffix(strings.ToLower(n), ext) {
			return n[:len(n)-len(ext)]
		}
	}
	return n
}

// Head is the first bytes of the decompressed content.
func (in *input) Head() []byte { return in.head }

// MaxRecord is the record cap in bytes.
func (in *input) MaxRecord() int64 { return in.guard.max }

// MapRaw are the canonical columns a mapping sets.
func (in *input) MapRaw() *record.FieldSet { return in.mapRaw }

// Reader is the decompressed content as a stream.
func (in *input) Reader() io.Reader { return in.br }

// All reads the whole decompressed content into memory, up to the document
// cap.
func (in *input) All() ([]byte, error) {
	in.wholeDocument()
	return io.ReadAll(in.br)
}

// ReaderAt gives random access for formats that need it (Parquet, Arrow
// files). A plain file is used as it is, hashed by a goroutine that runs
// beside the decoder; anything else (stdin, compressed) is copied to a
// temporary file first.
func (in *input) ReaderAt() (io.ReaderAt, int64, error) {
	in.Unlined()
	if in.file != nil && in.compression == "" {
		f, size := in.file, in.size
		done := make(chan string, 1)
		go func() {
			h := sha256.New()
			_, _ = io.Copy(h, io.NewSectionReader(f, 0, size))
			in.raw.n.Store(size)
			done <- hex.EncodeToString(h.Sum(nil))
		}()
		var sum string
		in.hashFn = func() string {
			if sum == "" {
				sum = <-done
			}
			return sum
		}
		return f, size, nil
	}
	tmp, err := os.CreateTemp("", "rewind-spool-*")
	if err != nil {
		return nil, 0, err
	}
	in.spool = tmp.Name()
	in.closes = append(in.closes, func() { tmp.Close(); os.Remove(in.spool) })
	n, err := io.Copy(tmp, in.br)
	if err != nil {
		return nil, 0, err
	}
	return tmp, n, nil
}

// sum is the SHA-256 of the raw bytes read so far (all of them, once the
// decoder has reached the end).
func (in *input) sum() string { return in.hashFn() }

// read is the number of raw bytes read so far.
func (in *input) read() int64 { return in.raw.n.Load() }

func (in *input) close() {
	for i := len(in.closes) - 1; i >= 0; i-- {
		in.closes[i]()
	}
	in.closes = nil
}

// hashingReader hashes and counts what passes through it.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n atomic.Int64
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n.Add(int64(n))
	return n, err
}

func (h *hashingReader) sum() string { return hex.EncodeToString(h.h.Sum(nil)) }

// hashPath is the SHA-256 of a whole file, for the repeat check that runs
// before decoding when a file of the same size was ingested before.
func hashPath(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// source is one input named on the command line after expansion.
type source struct {
	name string
	// fromDir is set for files found in a folder: one whose format is not
	// recognised is skipped (and named) instead of failing the ingest.
	fromDir bool
	// skip says why an entry of a folder is not read at all (a FIFO, a
	// device, a link): it is named as skipped.
	skip string
}

// CheckArgs tells whether every argument names something to read, so a
// command can refuse a typo before it creates a database file.
func CheckArgs(args []string) error {
	_, err := expand(args)
	return err
}

// expand turns the command line's arguments into inputs: "-" is standard
// input, a folder stands for the files in it (recursively, hidden ones left
// out, in name order), and a pattern with *, ? or [ that names no file is
// expanded as a glob.
func expand(args []string) ([]source, error) {
	var out []source
	add := func(s source) { out = append(out, s) }
	for _, a := range args {
		if a == Stdin {
			add(source{name: a})
			continue
		}
		if _, err := os.Stat(a); err != nil && strings.ContainsAny(a, "*?[") {
			matches, gerr := filepath.Glob(a)
			if gerr != nil {
				return nil, fmt.Errorf("%s: bad pattern: %v", a, gerr)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("%s: no file matches", a)
			}
			for _, m := range matches {
				if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(a), ".") {
					continue // as a shell's glob: * does not match hidden files
				}
				if err := addPath(m, add); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := addPath(a, add); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addPath adds a file, or the files of a folder.
func addPath(p string, add func(source)) error {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file or directory", p)
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		return addDir(p, add)
	}
	add(source{name: p})
	return nil
}

func addDir(dir string, add func(source)) error {
	var files []string
	skip := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		} else if why := notRead(p, d.Type()); why != "" {
			files, skip[p] = append(files, p), why
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no files in this folder", dir)
	}
	sort.Strings(files)
	for _, f := range files {
		add(source{name: f, fromDir: true, skip: skip[f]})
	}
	return nil
}

// notRead says why a folder's entry that is neither a file nor a folder is
// not read ("" for a folder): reading a FIFO or a device could block or
// never end, and links are not followed (a link to a folder could loop).
func notRead(p string, m fs.FileMode) string {
	switch {
	case m.IsDir():
		return ""
	case m&fs.ModeSymlink != 0:
		if _, err := os.Stat(p); err != nil {
			return "a link that leads nowhere (a loop or a missing target); links in a folder are not followed"
		}
		return "a link; links in a folder are not followed (name its target to read it)"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO), not a file"
	case m&fs.ModeDevice != 0:
		return "a device, not a file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a file"
	}
	return "not a regular file"
}
