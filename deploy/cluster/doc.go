// Package cluster holds the tests of cluster.sh, the script that starts N
// servers and M executors on one Redis locally. It has no code of its own.
package cluster
