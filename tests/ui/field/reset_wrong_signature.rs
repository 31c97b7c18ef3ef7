use pool_core::Poolable;

fn reset_scores(scores: &mut [f32; 3]) {
    *scores = [0.0; 3];
}

#[derive(Poolable, Default)]
struct Player {
    #[pool(reset = reset_scores)]
    scores: [f32; 4],
}

fn main() {
    let _ = Player::acquire();
}
