package server

import "github.com/labstack/echo/v4"

// routes registers routes under a prefix with shared middleware applied
// per route (see New for why not Group.Use).
type routes struct {
	e      *echo.Echo
	prefix string
	mw     []echo.MiddlewareFunc
}

func (r *routes) add(method, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	all := append(append([]echo.MiddlewareFunc{}, r.mw...), mw...)
	r.e.Add(method, r.prefix+path, h, all...)
}

// GET registers a GET route.
func (r *routes) GET(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add("GET", path, h, mw...)
}

// POST registers a POST route.
func (r *routes) POST(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add("POST", path, h, mw...)
}

// DELETE registers a DELETE route.
func (r *routes) DELETE(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add("DELETE", path, h, mw...)
}

// PUT registers a PUT route.
func (r *routes) PUT(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add("PUT", path, h, mw...)
}
