package main

// The L1 of `localnet up --l1`: a subnet, an xsvm chain in it (test/avalanchego/go.mod says why xsvm), and its conversion to an L1
// (ConvertSubnetToL1Tx, ACP-77), issued with the pre-funded key through AvalancheGo's own wallet, in the order
// AvalancheGo's e2e test of L1s takes (tests/e2e/p/l1.go). Its validators are nodes of their own that validate
// nothing on the primary network, as most L1 validators since Etna: they only track the subnet.

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/utils/units"
	xsvmtransfer "github.com/ava-labs/avalanchego/vms/example/xsvm/cmd/issue/transfer"
	xsvmgenesis "github.com/ava-labs/avalanchego/vms/example/xsvm/genesis"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// l1Validator is one validator the conversion names.
type l1Validator struct {
	// Name says what the tests use it for: "main" and "second" are funded for years, "short" only for four
	// minutes, so that its balance runs out while the tests watch (the continuous fee is charged per second at the
	// local network's price of 1 nAVAX/s, genesis/genesis_local.go ValidatorFeeConfig.MinPrice).
	Name         string `json:"name"`
	NodeID       string `json:"nodeId"`
	ValidationID string `json:"validationId"`
	Weight       uint64 `json:"weight"`
	// Balance in nAVAX at conversion.
	Balance uint64 `json:"balance"`
}

type l1Summary struct {
	SubnetID     string        `json:"subnetId"`
	BlockchainID string        `json:"blockchainId"`
	Validators   []l1Validator `json:"validators"`
}

// shortBalance is what the "short" validator is given: four minutes of fee at 1 nAVAX/s.
const shortBalance = 240

// xsvmGenesis is the L1 chain's genesis (vms/example/xsvm/genesis): the pre-funded key's address holds the chain's
// own asset, so that transfers can move the L1's height.
func xsvmGenesis() ([]byte, error) {
	return xsvmgenesis.Codec.Marshal(xsvmgenesis.CodecVersion, &xsvmgenesis.Genesis{
		Timestamp:   time.Now().Unix(),
		Allocations: []xsvmgenesis.Allocation{{Address: genesis.EWOQKey.Address(), Balance: math.MaxUint64}},
	})
}

// pluginDir makes the plugin directory the L1's nodes load VMs from: AvalancheGo names a VM plugin by its VM id
// (vms/registry/vm_getter.go), so the xsvm binary is linked there as constants.XSVMID.
func pluginDir(networkDir, vm string) (string, error) {
	dir := filepath.Join(networkDir, "plugins")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	link := filepath.Join(dir, constants.XSVMID.String())
	if err := os.Symlink(vm, link); err != nil && !os.IsExist(err) {
		return "", err
	}
	return dir, nil
}

// createL1 creates the subnet and its chain through uri, makes one node per validator (tracking the subnet, the
// plugin directory set), converts the subnet to an L1 with them as its validators, and starts them. The returned
// nodes are started but not yet waited for.
func createL1(ctx context.Context, log logging.Logger, network *tmpnet.Network, uri, vm string) (*l1Summary, []*tmpnet.Node, error) {
	key := genesis.EWOQKey
	kc := secp256k1fx.NewKeychain(key)
	wallet, err := primary.MakeWallet(ctx, uri, kc, kc, primary.WalletConfig{})
	if err != nil {
		return nil, nil, fmt.Errorf("making the wallet: %w", err)
	}
	pWallet := wallet.P()
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	subnetTx, err := pWallet.IssueCreateSubnetTx(owner)
	if err != nil {
		return nil, nil, fmt.Errorf("CreateSubnetTx: %w", err)
	}
	subnetID := subnetTx.ID()
	chainGenesis, err := xsvmGenesis()
	if err != nil {
		return nil, nil, err
	}
	chainTx, err := pWallet.IssueCreateChainTx(subnetID, chainGenesis, constants.XSVMID, nil, "l1")
	if err != nil {
		return nil, nil, fmt.Errorf("CreateChainTx: %w", err)
	}
	chainID := chainTx.ID()
	log.Info("created the L1's subnet and chain")

	plugins, err := pluginDir(network.Dir, vm)
	if err != nil {
		return nil, nil, fmt.Errorf("the plugin directory: %w", err)
	}
	plan := []struct {
		name    string
		weight  uint64
		balance uint64
		// partialSync: the node syncs only the P-Chain of the primary network, the usual setup of an L1 validator
		// (config/flags.go --partial-sync-primary-network).
		partialSync bool
	}{
		{"main", 60, units.Avax, true},
		{"second", 40, units.Avax, false},
		// Its weight is small, so the L1 stays healthy when it leaves the active set: an inactive validator's weight
		// stays in the L1's validator set under the empty node id, which no node is connected as
		// (vms/platformvm/state/state.go, "Load inactive ACP-77 validator weights").
		{"short", 5, shortBalance, false},
	}
	nodes := make([]*tmpnet.Node, len(plan))
	vdrs := make([]*txs.ConvertSubnetToL1Validator, len(plan))
	for i, p := range plan {
		flags := tmpnet.FlagsMap{
			config.TrackSubnetsKey: subnetID.String(),
			config.PluginDirKey:    plugins,
			config.NetworkNoIngressValidatorConnectionsGracePeriodKey: "5s",
		}
		if p.partialSync {
			flags[config.PartialSyncPrimaryNetworkKey] = "true"
		}
		nodes[i] = tmpnet.NewEphemeralNode(flags)
		if err := nodes[i].EnsureKeys(); err != nil {
			return nil, nil, err
		}
		pop, err := nodes[i].GetProofOfPossession()
		if err != nil {
			return nil, nil, err
		}
		vdrs[i] = &txs.ConvertSubnetToL1Validator{
			NodeID:  nodes[i].NodeID.Bytes(),
			Weight:  p.weight,
			Balance: p.balance,
			Signer:  *pop,
			// Who gets what is left of the balance when the validator is removed, and who may deactivate it.
			RemainingBalanceOwner: message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{key.Address()}},
			DeactivationOwner:     message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{key.Address()}},
		}
	}
	// The transaction lists its validators sorted by node id (txs/convert_subnet_to_l1_tx.go SyntacticVerify), and
	// each validation id is the subnet id with the validator's index in that list appended
	// (txs/executor/standard_tx_executor.go ConvertSubnetToL1Tx).
	order := make([]int, len(plan))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return vdrs[a].Compare(vdrs[b]) })
	sorted := make([]*txs.ConvertSubnetToL1Validator, len(order))
	for i, j := range order {
		sorted[i] = vdrs[j]
	}
	if _, err := pWallet.IssueConvertSubnetToL1Tx(subnetID, chainID, []byte{}, sorted); err != nil {
		return nil, nil, fmt.Errorf("ConvertSubnetToL1Tx: %w", err)
	}
	s := &l1Summary{SubnetID: subnetID.String(), BlockchainID: chainID.String()}
	for i, j := range order {
		s.Validators = append(s.Validators, l1Validator{
			Name:         plan[j].name,
			NodeID:       nodes[j].NodeID.String(),
			ValidationID: subnetID.Append(uint32(i)).String(),
			Weight:       plan[j].weight,
			Balance:      plan[j].balance,
		})
	}
	log.Info("converted the subnet to an L1")
	for _, n := range nodes {
		if err := network.StartNode(ctx, n); err != nil {
			return nil, nil, fmt.Errorf("starting an L1 validator: %w", err)
		}
	}
	return s, nodes, nil
}

// xsvmTransfer moves 1 unit of the L1 chain's asset from the pre-funded key to a fresh address and waits until it is
// accepted (vms/example/xsvm/cmd/issue/transfer), so that the L1's height moves.
func xsvmTransfer(ctx context.Context, uri string, chainID ids.ID) (string, error) {
	st, err := xsvmtransfer.Transfer(ctx, &xsvmtransfer.Config{
		URI:               uri,
		ChainID:           chainID,
		AssetID:           chainID,
		Amount:            1,
		To:                ids.GenerateTestShortID(),
		PrivateKey:        genesis.EWOQKey,
		WaitForAcceptance: true,
	})
	if err != nil {
		return "", err
	}
	return st.TxID.String(), nil
}
