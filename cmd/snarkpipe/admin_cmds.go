package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
)

var configCmd = &cli.Command{
	Name:  "config",
	Usage: "daemon configuration",
	Subcommands: []*cli.Command{{
		Name:  "default",
		Usage: "print the default configuration, commented",
		Action: func(c *cli.Context) error {
			s, err := commentedDefault()
			if err != nil {
				return err
			}
			_, err = io.WriteString(c.App.Writer, s)
			return err
		},
	}, {
		Name:      "check",
		Usage:     "validate a configuration file",
		ArgsUsage: "FILE",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("config check takes one FILE")
			}
			cfg, err := loadDaemonConfig(c.Args().First())
			if err != nil {
				return err
			}
			if err := cfg.resolvePaths(); err != nil {
				return err
			}
			if err := cfg.validate(); err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, "ok")
			return nil
		},
	}},
}

var authCmd = &cli.Command{
	Name:  "auth",
	Usage: "API tokens",
	Subcommands: []*cli.Command{{
		Name:  "create-token",
		Usage: "print a token (HS256 JWT) for the daemon's API",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "perm", Value: api.PermWrite, Usage: "read, write or admin (each includes the weaker ones)"},
			&cli.StringFlag{Name: "config", Usage: "daemon configuration (for token_secret)"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := loadDaemonConfig(c.String("config"))
			if err != nil {
				return err
			}
			if err := cfg.resolvePaths(); err != nil {
				return err
			}
			secret, err := loadSecret(cfg.TokenSecret)
			if err != nil {
				return err
			}
			tok, err := rpc.NewToken(secret, c.String("perm"))
			if err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, tok)
			return nil
		},
	}},
}

// daemonFlags locate a running daemon.
var daemonFlags = []cli.Flag{
	&cli.StringFlag{Name: "daemon", Usage: "daemon API address (default: the local daemon's, from the api file in its state_dir, else http://" + defaultListen + ")"},
	&cli.StringFlag{Name: "token", Usage: "API token (default: $SNARKPIPE_API_TOKEN, else the local daemon's read token)", EnvVars: []string{"SNARKPIPE_API_TOKEN"}},
	&cli.StringFlag{Name: "config", Usage: "daemon configuration `FILE`, for its state_dir"},
}

// daemonTarget is where a client command calls, and with which token: the flags, else
// what the local daemon left in its state directory, else the default address.
type daemonTarget struct {
	url, token string
	// hint says how the target was chosen, added to a connection failure.
	hint string
}

func daemonTargetOf(c *cli.Context) (daemonTarget, error) {
	t := daemonTarget{url: c.String("daemon"), token: c.String("token")}
	if t.url != "" {
		return t, nil
	}
	cfg, err := loadDaemonConfig(c.String("config"))
	if err != nil {
		return t, err
	}
	if err := cfg.resolvePaths(); err != nil {
		return t, err
	}
	url, token, err := readAPIFile(cfg.StateDir)
	if errors.Is(err, errNoLocalDaemon) {
		t.url, t.hint = "http://"+defaultListen, err.Error()
		return t, nil
	}
	if err != nil {
		return t, err
	}
	t.url = url
	if t.token == "" {
		t.token = token
	}
	return t, nil
}

// explainCallError adds what to do to the errors an operator meets first: a token
// without the permission (or none), and no daemon where we looked.
func explainCallError(err error, t daemonTarget, perm string) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "missing permission"), strings.Contains(msg, "invalid token"):
		return fmt.Errorf("%w; make a token with: snarkpipe auth create-token --perm %s (on the daemon's machine), and pass it as --token or $SNARKPIPE_API_TOKEN", err, perm)
	case strings.Contains(msg, "connection refused") && t.hint != "":
		return fmt.Errorf("%w; %s", err, t.hint)
	}
	return err
}

var statusCmd = &cli.Command{
	Name:  "status",
	Usage: "show a daemon's backend, proof types, queues, resident parameters and recent jobs",
	Flags: append([]cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the raw status as JSON"}}, daemonFlags...),
	Action: func(c *cli.Context) error {
		t, err := daemonTargetOf(c)
		if err != nil {
			return err
		}
		cl, closer, err := client.New(c.Context, t.url, t.token)
		if err != nil {
			return err
		}
		defer closer()
		ctx, cancel := context.WithTimeout(c.Context, 30*time.Second)
		defer cancel()
		st, err := cl.Status(ctx)
		if err != nil {
			return explainCallError(err, t, api.PermRead)
		}
		if c.Bool("json") {
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			return enc.Encode(st)
		}
		printStatus(c.App.Writer, st)
		return nil
	},
}

func printStatus(w io.Writer, st *api.Status) {
	fmt.Fprintf(w, "snarkpipe %s, backend %s", st.Version, st.Backend)
	if st.DevParams {
		fmt.Fprint(w, ", DEV parameters (proofs not valid on chain)")
	}
	if st.Draining {
		fmt.Fprint(w, ", draining")
	}
	fmt.Fprintln(w)
	for i, d := range st.Devices {
		fmt.Fprintf(w, "gpu%d: %s\n", i, d)
	}
	var entries []proofTypeEntry
	for _, p := range st.ProofTypes {
		entries = append(entries, proofTypeEntry{name: p.Name, kind: p.Kind, servable: p.Servable, reason: p.Reason})
	}
	printServable(w, "", entries)
	fmt.Fprintf(w, "partitions: %d waiting for synthesis, %d waiting for a device\n", st.PartitionsQueued, st.PartitionsHandoff)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nqueue\tqueued\trunning\tdone\tfailed")
	kinds := make([]string, 0, len(st.Queues))
	for k := range st.Queues {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		q := st.Queues[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", k, q.Queued, q.Running, q.Done, q.Failed)
	}
	printResident(tw, st)
	printJobs(tw, st.Recent, time.Now())
	tw.Flush()
}

// printResident lists the loaded parameters. On the CPU backend the "device" is host
// memory: its rows would repeat the host's, so only GPU backends show device rows.
func printResident(tw io.Writer, st *api.Status) {
	fmt.Fprintln(tw, "\nresident\twhere\tsize\tpinned\tprovenance")
	gpu := strings.HasPrefix(st.Backend, "gpu")
	for _, r := range st.Resident {
		if !gpu && strings.HasPrefix(r.Where, "device") {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", r.CircuitID, r.Where, humanBytes(r.Bytes), r.Pinned, r.Provenance)
	}
}

// printJobs lists recent jobs; a running job shows its elapsed time and the stage times
// of the partitions proved so far.
func printJobs(tw io.Writer, jobs []api.JobInfo, now time.Time) {
	fmt.Fprintln(tw, "\njob\tsector\tproof type\tstate\tpartitions\telapsed\tqueue\tload\twitness\tprove\tverify\terror")
	for _, j := range jobs {
		var t api.StageTiming
		for _, p := range j.Timings {
			t.Queue, t.Load, t.Witness = t.Queue+p.Queue, t.Load+p.Load, t.Witness+p.Witness
			t.Prove, t.Verify = t.Prove+p.Prove, t.Verify+p.Verify
		}
		end := j.Finished
		if end.IsZero() {
			end = now
		}
		parts := fmt.Sprint(j.Partitions)
		if j.State == "running" || j.State == "queued" {
			parts = fmt.Sprintf("%d/%d", j.PartitionsDone, j.Partitions)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Sector, j.ProofType, j.State, parts,
			secs(end.Sub(j.Submitted)), secs(t.Queue), secs(t.Load), secs(t.Witness), secs(t.Prove), secs(t.Verify), j.Error)
	}
}

// humanBytes writes a byte count in binary units (1.5 GiB).
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
