package ignore

import "strings"

// indexMin is the smallest list that gets a lookup index; shorter lists
// are scanned, which is faster than hashing.
const indexMin = 16

// patternSet is one list of patterns, with an index over the literal ones
// when the list is long.
type patternSet struct {
	pats []Pattern
	base string // the common base of all patterns, when same is set
	same bool
	idx  *setIndex
}

// setIndex finds candidate patterns by key instead of scanning them all.
// Every slice holds pattern indexes in decreasing order, so the first
// matching candidate is the last matching pattern of its slice.
type setIndex struct {
	names  map[string][]int // kindName by base name
	paths  map[string][]int // kindPath by full path
	exts   map[string][]int // kindSuffix by the text after the last '.'
	byName [256][]int       // other base-name patterns by the first byte they accept
	byRel  [256][]int       // other path patterns by the first byte they accept
	rest   []int            // patterns that accept any first byte
}

func newPatternSet(ps []Pattern) *patternSet {
	s := &patternSet{pats: ps, base: ps[0].base, same: true}
	for i := range ps {
		if ps[i].base != s.base {
			s.same = false
		}
	}
	if s.same && len(ps) >= indexMin {
		s.idx = buildIndex(ps)
	}
	return s
}

func buildIndex(ps []Pattern) *setIndex {
	x := &setIndex{names: map[string][]int{}, paths: map[string][]int{}, exts: map[string][]int{}}
	for i := len(ps) - 1; i >= 0; i-- {
		p := &ps[i]
		switch {
		case p.kind == kindName:
			x.names[p.lit] = append(x.names[p.lit], i)
		case p.kind == kindPath:
			key := p.base + p.lit
			x.paths[key] = append(x.paths[key], i)
		case p.kind == kindSuffix && strings.IndexByte(p.lit, '.') >= 0:
			key := p.lit[strings.LastIndexByte(p.lit, '.')+1:]
			x.exts[key] = append(x.exts[key], i)
		default:
			x.addByFirst(p, i)
		}
	}
	return x
}

// addByFirst files pattern i under each first byte it can accept.
func (x *setIndex) addByFirst(p *Pattern, i int) {
	table := &x.byName
	if p.kind == kindPath || p.kind == kindPathGlob {
		table = &x.byRel
	}
	var first func(c byte) bool
	switch {
	case p.kind == kindSuffix: // lit is a suffix: any first byte
	case p.lit != "":
		table[p.lit[0]] = append(table[p.lit[0]], i)
		return
	case p.glob != nil:
		first = p.glob.FirstBytes()
	}
	if first == nil {
		x.rest = append(x.rest, i)
		return
	}
	for c := range 256 {
		if first(byte(c)) {
			table[c] = append(table[c], i)
		}
	}
}

// last returns the index of the last pattern in s that matches, or -1.
func (s *patternSet) last(path, name string, isDir bool) int {
	if s.same && !under(path, s.base) {
		return -1
	}
	if s.idx != nil {
		return s.lastIndexed(path, name, isDir)
	}
	for i := len(s.pats) - 1; i >= 0; i-- {
		p := &s.pats[i]
		if (s.same || under(path, p.base)) && p.matches(path, name, isDir) {
			return i
		}
	}
	return -1
}

// lastIndexed is last for a set with an index: the literal candidates come
// from the maps, and only patterns after the best of them need a scan.
func (s *patternSet) lastIndexed(path, name string, isDir bool) int {
	x := s.idx
	best := s.first(x.names[name], -1, path, name, isDir)
	best = s.first(x.paths[path], best, path, name, isDir)
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		best = s.first(x.exts[name[dot+1:]], best, path, name, isDir)
	}
	if name != "" { // always, unless the caller broke the no-trailing-slash rule
		best = s.first(x.byName[name[0]], best, path, name, isDir)
	}
	best = s.first(x.byRel[path[len(s.base)]], best, path, name, isDir)
	return s.first(x.rest, best, path, name, isDir)
}

// first returns the first index in cands (sorted decreasingly) above best
// whose pattern matches, or best.
func (s *patternSet) first(cands []int, best int, path, name string, isDir bool) int {
	for _, i := range cands {
		if i <= best {
			break
		}
		if s.pats[i].matches(path, name, isDir) {
			return i
		}
	}
	return best
}
