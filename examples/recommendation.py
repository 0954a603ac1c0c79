"""
Recommendation by normalised kernel similarity: the nearest items
==================================================================

Lecture: Kernels -- the distance methods, product recommendation: items
compared by normalised inner products k(x, y) / sqrt(k(x, x) k(y, y)), the
cosine of the angle of phi(x) and phi(y), and the most similar items
recommended.

Two kinds of items. First, products rated by users (a generated ratings
matrix: 4 genres, users who like some genres more than others, and products
of very different popularity). A product is the column of its ratings. On the
raw ratings (all positive) the plain inner product favours the popular
products, which share many raters with everything; normalising by
sqrt(k(x,x) k(y,y)) compares directions only, and the nearest products share
the genre more often. Centring each user's ratings on the user's mean (the
"adjusted cosine" of item-based collaborative filtering) removes much more of
what the products do not share, and then the nearest products are of the same
genre nearly always, normalised or not. Second, DNA sequences (the bundled splice-junction
data), which are not vectors at all: a string kernel compares them, and the
position-aware weighted-degree kernel finds neighbours of the same junction
type much more often than chance, the bag-of-3-mers spectrum kernel less so.

The script prints the share of the 5 nearest items in the same group (genre,
junction type) and the chance level, the first recommendations of one
product, and draws the similarity matrix and the shares.

Run: ``python examples/recommendation.py`` (about 5 seconds)
"""

import argparse

import numpy as np

from kernelkit.datasets import load_dna_splice
from kernelkit.kernels import Linear, Spectrum, WeightedDegree
from kernelkit.models import KernelSimilarity

N_USERS, N_GENRES, ITEMS_PER_GENRE = 300, 4, 20
K_NEAREST = 5


def ratings_matrix(seed=0):
    """Generated ratings (users x products) in 1..5, 0 for unrated, and the products' genres.

    Each user likes each genre by a random amount; a product is rated by a user
    with its own probability (its popularity, 0.03 to 0.6), the rating is
    3 + 1.5 x the user's liking of its genre + noise, rounded and clipped.
    """
    rng = np.random.default_rng(seed)
    genre = np.repeat(np.arange(N_GENRES), ITEMS_PER_GENRE)
    liking = rng.normal(size=(N_USERS, N_GENRES))
    popularity = rng.uniform(0.03, 0.6, size=genre.size)
    rated = rng.uniform(size=(N_USERS, genre.size)) < popularity
    scores = 3 + 1.5 * liking[:, genre] + rng.normal(scale=0.5, size=rated.shape)
    R = np.where(rated, np.clip(np.rint(scores), 1, 5), 0.0)
    return R, genre


def centred_items(R):
    """Products as rows: each user's ratings minus the user's mean rating, 0 where unrated."""
    rated = R > 0
    mean = R.sum(axis=1) / np.maximum(rated.sum(axis=1), 1)
    return np.where(rated, R - mean[:, None], 0.0).T


def same_group_share(indices, groups):
    """Share of the neighbours (rows of ``indices``) in the group of their query."""
    return float(np.mean(groups[indices] == groups[:, None]))


def chance_share(groups):
    """Share of same-group items among the other items, averaged over the items."""
    _, counts = np.unique(groups, return_counts=True)
    return float(np.sum(counts * (counts - 1)) / (groups.size * (groups.size - 1)))


def run(quick=False):
    """Nearest products by ratings, nearest DNA sequences by string kernels."""
    R, genre = ratings_matrix()
    res = {"genre": genre, "ratings": R, "share": {}, "chance": {"ratings": chance_share(genre)}}
    for name, items in (("ratings", R.T), ("centred ratings", centred_items(R))):
        normalised = KernelSimilarity(K_NEAREST, kernel=Linear()).fit(items)
        sim, ind = normalised.kneighbors()  # each product's most similar other products
        inner = items @ items.T  # the plain inner product, for comparison
        np.fill_diagonal(inner, -np.inf)
        inner_ind = np.argsort(-inner, axis=1, kind="stable")[:, :K_NEAREST]
        res[f"{name} items"] = items
        res[f"{name} indices"], res[f"{name} similarities"] = ind, sim
        res[f"{name} inner product indices"] = inner_ind
        res["share"][f"{name}, inner product"] = same_group_share(inner_ind, genre)
        res["share"][f"{name}, normalised"] = same_group_share(ind, genre)
    res["similarity_matrix"] = normalised.similarities()

    X, y = load_dna_splice(return_X_y=True)
    pick = np.random.default_rng(0).choice(len(X), 300 if quick else 1000, replace=False)
    seqs, junction = np.asarray(X[pick], dtype=str), y[pick]
    res["dna"], res["junction"] = seqs, junction
    res["chance"]["dna"] = chance_share(junction)
    for name, kernel in (("weighted degree", WeightedDegree(degree=3, normalize=False)),
                         ("spectrum (3-mers)", Spectrum(k=3, normalize=False))):
        dna_sim, dna_ind = KernelSimilarity(K_NEAREST, kernel=kernel).fit(seqs).kneighbors()
        res[f"dna {name} indices"], res[f"dna {name} similarities"] = dna_ind, dna_sim
        res["share"][f"DNA, {name}"] = same_group_share(dna_ind, junction)

    print(f"{'nearest ' + str(K_NEAREST) + ' items in the same group':40s} {'share':>7s} "
          f"{'chance':>7s}")
    for key, share in res["share"].items():
        chance = res["chance"]["dna" if key.startswith("DNA") else "ratings"]
        print(f"{key:40s} {share:7.3f} {chance:7.3f}")
    ind, sim = res["centred ratings indices"], res["centred ratings similarities"]
    print(f"\nproduct 0 (genre {genre[0]}, rated by {int((R[:, 0] > 0).sum())} users): "
          "recommended " + ", ".join(f"{j} (genre {genre[j]}, similarity {s:.2f})"
                                     for j, s in zip(ind[0][:3], sim[0][:3])))
    return res


def plot(results):
    """Left: the products' normalised similarities, by genre; right: the shares."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4.8), layout="constrained")
    ax, bar = fig.subplots(1, 2)
    S = results["similarity_matrix"]
    image = ax.imshow(S, cmap="RdBu_r", vmin=-1, vmax=1)
    fig.colorbar(image, ax=ax, shrink=0.8, label="k(x, y) / sqrt(k(x, x) k(y, y))")
    ax.set_title("normalised similarity of centred ratings (by genre)")
    ax.set_xlabel("product")
    ax.set_ylabel("product")
    names = list(results["share"])
    values = [results["share"][n] for n in names]
    chance = [results["chance"]["dna" if n.startswith("DNA") else "ratings"] for n in names]
    pos = np.arange(len(names))
    bar.barh(pos, values, color="tab:blue", label=f"{K_NEAREST} nearest in the same group")
    bar.scatter(chance, pos, color="k", marker="|", s=400, label="chance", zorder=3)
    bar.set_yticks(pos, names)
    bar.invert_yaxis()
    bar.set_xlim(0, 1)
    bar.legend(loc="upper center", bbox_to_anchor=(0.5, -0.06), ncols=2, fontsize=8)
    bar.set_title("recommendations in the same group")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Nearest items by normalised kernel "
                                     "similarity.")
    parser.add_argument("--quick", action="store_true", help="fewer DNA sequences")
    parser.add_argument("--out", default="recommendation.png", help="PNG file to write")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
