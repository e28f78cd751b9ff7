package isolation

// runState is what every backend's Process records about one run: the
// layers that applied and, once done is closed, how the run ended and how
// its cleanup went. Backends embed it and fill it in before closing done.
type runState struct {
	layers  []string
	done    chan struct{}
	exit    Exit
	waitErr error
	cleanup string
}

func newRunState() runState { return runState{done: make(chan struct{})} }

// Layers implements Process.
func (s *runState) Layers() []string { return append([]string(nil), s.layers...) }

// Wait implements Process. When the main process exits, whatever it left
// running in the run is killed: a run ends with its main process.
func (s *runState) Wait() (Exit, error) {
	<-s.done
	return s.exit, s.waitErr
}

// Cleanup implements Process: unconfirmed until the run has ended.
func (s *runState) Cleanup() string {
	select {
	case <-s.done:
		return s.cleanup
	default:
		return "cleanup_unconfirmed"
	}
}
