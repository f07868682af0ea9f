// Command localnet starts, drives and stops the local AvalancheGo network the test suite runs against
// (test/helpers/local-network.ts). It is a thin layer over AvalancheGo's own orchestration and wallet
// libraries, so the network is set up exactly as AvalancheGo's e2e tests set theirs up:
//
//   - tests/fixture/tmpnet (network.go, genesis.go): genesis with the nodes as initial stakers, staking and
//     BLS keys, flags.json per node, dynamic ports on 127.0.0.1, process.json per node;
//   - wallet/subnet/primary: the X-Chain and P-Chain transactions; graft/coreth/ethclient for the C-Chain.
//
// Every subcommand prints one JSON document on standard output; progress goes to standard error.
//
//	localnet up   --dir DIR --avalanchego BIN [--validators 5] [--l1 --xsvm PLUGIN]
//	                                 start a network (and an L1 running xsvm), wait until every node is healthy
//	localnet down --dir DIR          stop every node of the network in DIR
//	localnet tx   --uri URI [--xsvm-chain ID]
//	                                 one X-Chain, one P-Chain and one C-Chain transfer; with --xsvm-chain, one
//	                                 transfer on that xsvm chain only (the L1's)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/config/node"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/graft/coreth/ethclient"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// summaryFile is where `up` writes what the tests need to know, inside --dir.
const summaryFile = "localnet.json"

// nodeSummary is one node as the tests see it.
type nodeSummary struct {
	// Role is "validator" (a genesis staker), "rpc" (validates nothing), "partial-sync"
	// (--partial-sync-primary-network: tracks the P-Chain only, config/flags.go) or "l1-validator" (validates the
	// L1 only, and tracks its subnet).
	Role           string `json:"role"`
	NodeID         string `json:"nodeId"`
	URI            string `json:"uri"`
	StakingAddress string `json:"stakingAddress"`
	PID            int    `json:"pid"`
	DataDir        string `json:"dataDir"`
	FlagsPath      string `json:"flagsPath"`
}

type summary struct {
	NetworkDir string        `json:"networkDir"`
	NetworkID  uint32        `json:"networkId"`
	Nodes      []nodeSummary `json:"nodes"`
	// PreFundedKey is the hex of genesis.EWOQKey, funded on X, P and C in tmpnet's genesis (genesis.go).
	PreFundedKey string `json:"preFundedKey"`
	// L1 is set with --l1.
	L1 *l1Summary `json:"l1,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: localnet up|down|tx [flags]"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var err error
	switch os.Args[1] {
	case "up":
		err = up(ctx, os.Args[2:])
	case "down":
		err = down(ctx, os.Args[2:])
	case "tx":
		err = transfer(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q (up, down, tx)", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "localnet:", err)
	os.Exit(1)
}

func logger() logging.Logger {
	return logging.NewLogger("localnet", logging.NewWrappedCore(logging.Info, os.Stderr, logging.Plain.ConsoleEncoder()))
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// extraNode is a node started after the genesis validators, and its role in the summary.
type extraNode struct {
	role string
	node *tmpnet.Node
}

func up(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	dir := fs.String("dir", "", "directory to create the network in")
	bin := fs.String("avalanchego", "", "path of the avalanchego binary")
	validators := fs.Int("validators", 5, "genesis validators")
	withL1 := fs.Bool("l1", false, "also create an L1: a subnet, an xsvm chain, converted with validators of its own")
	xsvm := fs.String("xsvm", "", "path of the xsvm plugin binary (with --l1)")
	_ = fs.Parse(args)
	if *dir == "" || *bin == "" {
		return errors.New("up needs --dir and --avalanchego")
	}
	if *withL1 && *xsvm == "" {
		return errors.New("up --l1 needs --xsvm")
	}
	log := logger()

	network := &tmpnet.Network{
		Owner: "avax-exporter",
		Nodes: tmpnet.NewNodesOrPanic(*validators),
		DefaultRuntimeConfig: tmpnet.NodeRuntimeConfig{
			// ReuseDynamicPorts: a node restarted through tmpnet keeps its API port, as an operator's does.
			Process: &tmpnet.ProcessRuntimeConfig{AvalancheGoPath: *bin, ReuseDynamicPorts: true},
		},
		DefaultFlags: tmpnet.FlagsMap{
			config.LogLevelKey: logging.Info.String(),
			// AvalancheGo raises its descriptor limit to --fd-limit (default 32768) and refuses to start when the
			// hard limit is lower (utils/ulimit): ask for what this machine allows.
			config.FdLimitKey: strconv.FormatUint(fdLimit(), 10),
			// A validator's network check fails with "primary network validator has no inbound connections" once
			// this grace period has passed since start-up and no peer has dialled it (network/network.go
			// HealthCheck, network/no_ingress_conn_alert.go). In a network started at once, the validator started
			// last has dialled every other one and is dialled by none, so after the default 10 minutes it turns
			// unhealthy for good: an hour keeps the suite's longest files clear of it.
			config.NetworkNoIngressValidatorConnectionsGracePeriodKey: "1h",
		},
	}
	if err := tmpnet.BootstrapNewNetwork(ctx, log, network, *dir); err != nil {
		return fmt.Errorf("starting the validators: %w", err)
	}

	// Two nodes that validate nothing, started once the validators are up so that they bootstrap from them:
	// an RPC node, and one that syncs only the P-Chain. Their grace period is short, so that their network check
	// soon reports "primary network validator health" as a node that has run for a while does (a node that
	// validates nothing passes it whatever its connections).
	const shortGrace = config.NetworkNoIngressValidatorConnectionsGracePeriodKey
	extras := []extraNode{
		{"rpc", tmpnet.NewEphemeralNode(tmpnet.FlagsMap{shortGrace: "5s"})},
		{"partial-sync", tmpnet.NewEphemeralNode(tmpnet.FlagsMap{shortGrace: "5s", config.PartialSyncPrimaryNetworkKey: "true"})},
	}
	for _, e := range extras {
		if err := network.StartNode(ctx, e.node); err != nil {
			return fmt.Errorf("starting the %s node: %w", e.role, err)
		}
	}
	var l1 *l1Summary
	if *withL1 {
		var l1Nodes []*tmpnet.Node
		var err error
		if l1, l1Nodes, err = createL1(ctx, log, network, network.Nodes[0].GetAccessibleURI(), *xsvm); err != nil {
			return fmt.Errorf("the L1: %w", err)
		}
		for _, n := range l1Nodes {
			extras = append(extras, extraNode{"l1-validator", n})
		}
	}
	// Healthy includes every chain the node runs: the L1's too, once bootstrapped (api/health, chains/manager.go).
	for _, e := range extras {
		if err := e.node.WaitForHealthy(ctx); err != nil {
			return fmt.Errorf("waiting for the %s node: %w", e.role, err)
		}
	}

	s := summary{
		NetworkDir:   network.Dir,
		NetworkID:    network.GetNetworkID(),
		PreFundedKey: genesis.EWOQKey.String(),
		L1:           l1,
	}
	add := func(role string, n *tmpnet.Node) error {
		pc, err := readProcessContext(n.DataDir)
		if err != nil {
			return err
		}
		s.Nodes = append(s.Nodes, nodeSummary{
			Role:           role,
			NodeID:         n.NodeID.String(),
			URI:            pc.URI,
			StakingAddress: pc.StakingAddress.String(),
			PID:            pc.PID,
			DataDir:        n.DataDir,
			FlagsPath:      n.GetFlagsPath(),
		})
		return nil
	}
	for _, n := range network.Nodes {
		if err := add("validator", n); err != nil {
			return err
		}
	}
	for _, e := range extras {
		if err := add(e.role, e.node); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*dir, summaryFile), b, 0o600); err != nil {
		return err
	}
	return printJSON(s)
}

// fdLimit is the hard limit on open files, capped at AvalancheGo's default.
func fdLimit() uint64 {
	const avalanchegoDefault = 32768
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Max > avalanchegoDefault {
		return avalanchegoDefault
	}
	return rl.Max
}

func readProcessContext(dataDir string) (node.ProcessContext, error) {
	var pc node.ProcessContext
	b, err := os.ReadFile(filepath.Join(dataDir, config.DefaultProcessContextFilename))
	if err != nil {
		return pc, fmt.Errorf("reading the process context: %w", err)
	}
	return pc, json.Unmarshal(b, &pc)
}

func down(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("down", flag.ExitOnError)
	dir := fs.String("dir", "", "directory the network was created in (as given to up)")
	_ = fs.Parse(args)
	b, err := os.ReadFile(filepath.Join(*dir, summaryFile))
	if err != nil {
		return err
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	// StopNetwork reads every node directory (the extra nodes' too) and sends SIGTERM to the PID in its
	// process.json, then waits for each to exit (network.go, process_runtime.go).
	if err := tmpnet.StopNetwork(ctx, logger(), s.NetworkDir); err != nil {
		return err
	}
	return printJSON(map[string]string{"stopped": s.NetworkDir})
}

// transfer issues one X-Chain and one P-Chain base transaction and one C-Chain transfer from the pre-funded key
// to a fresh address, so that the three chains each accept a block (the P-Chain builds blocks only for its own
// transactions: the X and C transfers alone leave its height where it was). With --xsvm-chain, only a transfer on
// that xsvm chain (the L1's).
func transfer(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tx", flag.ExitOnError)
	uri := fs.String("uri", "", "node API URI, e.g. http://127.0.0.1:9650")
	xsvmChain := fs.String("xsvm-chain", "", "blockchain id of an xsvm chain to make the only transfer on")
	_ = fs.Parse(args)
	if *uri == "" {
		return errors.New("tx needs --uri")
	}
	if *xsvmChain != "" {
		chainID, err := ids.FromString(*xsvmChain)
		if err != nil {
			return fmt.Errorf("--xsvm-chain: %w", err)
		}
		txID, err := xsvmTransfer(ctx, *uri, chainID)
		if err != nil {
			return fmt.Errorf("transfer on %s: %w", *xsvmChain, err)
		}
		return printJSON(map[string]string{"l1": txID})
	}
	to := ids.GenerateTestShortID()
	key := genesis.EWOQKey
	kc := secp256k1fx.NewKeychain(key)
	wallet, err := primary.MakeWallet(ctx, *uri, kc, kc, primary.WalletConfig{})
	if err != nil {
		return fmt.Errorf("making the wallet: %w", err)
	}
	// The same output on both chains: 0.001 AVAX to the fresh address (the AVAX asset id is the same on X and P).
	outputs := func(asset ids.ID) []*avax.TransferableOutput {
		return []*avax.TransferableOutput{{
			Asset: avax.Asset{ID: asset},
			Out: &secp256k1fx.TransferOutput{
				Amt:          1_000_000,
				OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{to}},
			},
		}}
	}
	xTx, err := wallet.X().IssueBaseTx(outputs(wallet.X().Builder().Context().AVAXAssetID))
	if err != nil {
		return fmt.Errorf("X-Chain transfer: %w", err)
	}
	pTx, err := wallet.P().IssueBaseTx(outputs(wallet.P().Builder().Context().AVAXAssetID))
	if err != nil {
		return fmt.Errorf("P-Chain transfer: %w", err)
	}
	hash, err := evmTransfer(ctx, *uri+"/ext/bc/C/rpc", common.BytesToAddress(to[:]))
	if err != nil {
		return fmt.Errorf("C-Chain transfer: %w", err)
	}
	return printJSON(map[string]string{"x": xTx.ID().String(), "p": pTx.ID().String(), "c": hash})
}

// evmTransfer sends 1 gwei from the pre-funded key to `to` on the EVM chain at rpcURL (the C-Chain's) and waits
// until it is accepted, so that the caller sees the height move.
func evmTransfer(ctx context.Context, rpcURL string, to common.Address) (string, error) {
	key := genesis.EWOQKey
	client, err := ethclient.Dial(rpcURL)
	if err != nil {
		return "", err
	}
	defer client.Close()
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return "", fmt.Errorf("chain id: %w", err)
	}
	nonce, err := client.NonceAt(ctx, key.EthAddress(), nil)
	if err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	gasPrice, err := client.SuggestGasPrice(ctx)
	if err != nil {
		return "", fmt.Errorf("gas price: %w", err)
	}
	tx := types.NewTransaction(nonce, to, big.NewInt(1_000_000_000), 21_000, gasPrice, nil)
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(chainID), key.ToECDSA())
	if err != nil {
		return "", err
	}
	if err := client.SendTransaction(ctx, signed); err != nil {
		return "", err
	}
	for {
		receipt, err := client.TransactionReceipt(ctx, signed.Hash())
		if err == nil && receipt != nil {
			return signed.Hash().Hex(), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%s not accepted: %w", signed.Hash(), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
