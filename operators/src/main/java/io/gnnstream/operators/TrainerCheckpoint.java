package io.gnnstream.operators;

import io.gnnstream.operators.internal.InferenceTableState;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelFactory;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.MiniBatchSerializer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * The {@link TrainerOperator}'s operator state (docs/design.md, "Checkpoints and restore",
 * "Trainer" and "Another trainer count"): every rank's {@link TrainerReplica} in union list state
 * ({@link #REPLICAS}), and per rank, in split list state, the batches waiting for their turn, the
 * parts of incomplete batches, the pending step and the tables of an evaluation round in progress.
 *
 * <p>{@link #restore} gives a rank its own replica at the checkpoint's trainer count (the furthest
 * one where its own is a step behind, {@link TrainerReplica#catchUp}), and at another count the
 * replica of the furthest step any old rank applied with a progress of the next layout ({@link
 * TrainerReplica#restoredAt}); only in the first case do the rank's split states belong to it.
 * Checkpoints written before the replicas existed keep model and progress in split list states
 * ({@link #LEGACY_MODEL}, {@link #LEGACY_PROGRESS}): Flink keeps a list state's redistribution mode
 * in the checkpoint and refuses to register split list state as union list state, so the replicas
 * have a state of their own and these are read instead, at the checkpoint's trainer count only.
 */
final class TrainerCheckpoint {

    static final ListStateDescriptor<TrainerReplica> REPLICAS =
            new ListStateDescriptor<>("replicas", TypeInformation.of(TrainerReplica.class));
    static final ListStateDescriptor<ModelState> LEGACY_MODEL =
            new ListStateDescriptor<>("model", TypeInformation.of(ModelState.class));
    static final ListStateDescriptor<TrainerProgress> LEGACY_PROGRESS =
            new ListStateDescriptor<>("progress", TypeInformation.of(TrainerProgress.class));

    private final OperatorStateStore store;
    private final ListState<TrainerReplica> replicas;
    private final ListState<MiniBatch> buffered;
    private final ListState<MiniBatchPart> partials;
    private final ListState<PendingStep> pending;
    private final ListState<InferenceTableState> inference;

    /**
     * What a rank restores: model and progress, and whether its own split states belong to them.
     */
    record Restored(
            GnnModel model,
            TrainerProgress progress,
            boolean own,
            int fromRank,
            int fromRanks,
            float[] bestParameters) {}

    TrainerCheckpoint(OperatorStateStore store) throws Exception {
        this.store = store;
        replicas = store.getUnionListState(REPLICAS);
        buffered =
                store.getListState(
                        new ListStateDescriptor<>(
                                "buffered-batches", MiniBatchSerializer.TYPE_INFO));
        partials =
                store.getListState(
                        new ListStateDescriptor<>(
                                "partial-batches", MiniBatchPartSerializer.TYPE_INFO));
        pending =
                store.getListState(
                        new ListStateDescriptor<>(
                                "pending-step", TypeInformation.of(PendingStep.class)));
        inference =
                store.getListState(
                        new ListStateDescriptor<>(
                                "inference-tables", TypeInformation.of(InferenceTableState.class)));
    }

    /**
     * Model and progress of rank {@code rank} of {@code trainers} (fresh ones when nothing was
     * restored), the model made by {@code models} (on the rank's device).
     */
    Restored restore(
            int rank, int trainers, ModelConfig model, boolean restored, ModelFactory models)
            throws Exception {
        List<TrainerReplica> all = new ArrayList<>();
        replicas.get().forEach(all::add);
        if (all.isEmpty()) {
            return restoreLegacy(rank, trainers, model, restored, models);
        }
        if (all.stream().allMatch(r -> r.trainers == trainers)) {
            TrainerReplica own =
                    all.stream()
                            .filter(r -> r.rank == rank)
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "no checkpointed replica of rank " + rank));
            TrainerReplica furthest = TrainerReplica.furthest(all);
            if (furthest.appliedStep() > own.appliedStep()) {
                TrainerReplica.catchUp(own.progress, furthest);
                return new Restored(
                        models.restore(model, furthest.model),
                        own.progress,
                        true,
                        furthest.rank,
                        trainers,
                        furthest.bestParameters);
            }
            return new Restored(
                    models.restore(model, own.model),
                    own.progress,
                    true,
                    rank,
                    trainers,
                    own.bestParameters);
        }
        TrainerReplica furthest = TrainerReplica.furthest(all);
        return new Restored(
                models.restore(model, furthest.model),
                TrainerReplica.restoredAt(all),
                false,
                furthest.rank,
                all.size(),
                furthest.bestParameters);
    }

    private Restored restoreLegacy(
            int rank, int trainers, ModelConfig config, boolean restored, ModelFactory models)
            throws Exception {
        List<ModelState> states = new ArrayList<>();
        List<TrainerProgress> progresses = new ArrayList<>();
        if (store.getRegisteredStateNames().contains(LEGACY_MODEL.getName())) {
            ListState<ModelState> legacy = store.getListState(LEGACY_MODEL);
            legacy.get().forEach(states::add);
            legacy.clear();
        }
        if (store.getRegisteredStateNames().contains(LEGACY_PROGRESS.getName())) {
            ListState<TrainerProgress> legacy = store.getListState(LEGACY_PROGRESS);
            legacy.get().forEach(progresses::add);
            legacy.clear();
        }
        if (restored && (states.size() != 1 || progresses.size() != 1)) {
            throw new IllegalStateException(
                    "rank "
                            + rank
                            + " of "
                            + trainers
                            + " restored "
                            + states.size()
                            + " models: the checkpoint was written by a version that restores only"
                            + " at its own trainer count");
        }
        GnnModel model =
                states.isEmpty() ? models.create(config) : models.restore(config, states.get(0));
        return new Restored(
                model,
                progresses.isEmpty() ? new TrainerProgress() : progresses.get(0),
                true,
                rank,
                trainers,
                null);
    }

    Iterable<MiniBatch> buffered() throws Exception {
        return buffered.get();
    }

    Iterable<MiniBatchPart> partials() throws Exception {
        return partials.get();
    }

    Iterable<PendingStep> pending() throws Exception {
        return pending.get();
    }

    /**
     * Writes a rank's state; {@code pendingStep} may be null. The inference tables that state of
     * earlier versions held (rounds keep nothing on a rank now) are cleared.
     */
    void snapshot(
            TrainerReplica replica,
            List<MiniBatch> bufferedBatches,
            List<MiniBatchPart> partialParts,
            PendingStep pendingStep)
            throws Exception {
        replicas.update(List.of(replica));
        buffered.update(bufferedBatches);
        partials.update(partialParts);
        pending.update(pendingStep == null ? List.of() : List.of(pendingStep));
        inference.clear();
    }
}
