package report

import "github.com/git-loop/git-loop/loop"

// OpenStore is loop.OpenStore with the report wired in (Files renders a completed or
// stopped loop's report into its final commit): the store the hooks and the driver use.
func OpenStore(dir string) (*loop.Store, error) {
	return withReport(loop.OpenStore(dir))
}

// OpenStoreFromEnv is loop.OpenStoreFromEnv ($GIT_DIR honoured, as git would) with the
// report wired in: the store every command uses.
func OpenStoreFromEnv(dir string) (*loop.Store, error) {
	return withReport(loop.OpenStoreFromEnv(dir))
}

func withReport(s *loop.Store, err error) (*loop.Store, error) {
	if err != nil {
		return nil, err
	}
	s.ReportFiles = Files
	return s, nil
}
