package server

import (
	"context"

	"github.com/toolwarden/toolwarden/execution"
)

// conversationCancelled tells Config.ConversationCancelled about a
// cancelled conversation: for owner alone, or — when owner is "" (an admin
// or reviewer cancelled it for everyone) — for every owner with a record
// in it, since each owner's runs of a conversation have a workspace of
// their own.
func (s *Server) conversationCancelled(ctx context.Context, conv, owner string) error {
	hook := s.cfg.ConversationCancelled
	if hook == nil {
		return nil
	}
	if owner != "" {
		hook(ctx, owner, conv)
		return nil
	}
	seen := map[string]bool{}
	f := execution.Filter{ConversationID: conv, Limit: execution.MaxListLimit}
	for {
		recs, next, err := s.backend.List(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if !seen[r.OwnerKeyID] {
				seen[r.OwnerKeyID] = true
				hook(ctx, r.OwnerKeyID, conv)
			}
		}
		if next == "" {
			return nil
		}
		f.Cursor = next
	}
}
