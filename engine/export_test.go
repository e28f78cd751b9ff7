package engine

// Packs exposes the loaded packs to the external tests.
func (e *Engine) Packs() []Pack {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]Pack(nil), e.packs...)
}
